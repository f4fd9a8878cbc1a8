//! A coordinator on 127.0.0.1:0 with a stop switch, and clients for it.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use tcfuzz_coordinator::{Config, ServeError, Settings, serve};
use tcfuzz_corpus::Corpus;
use tcfuzz_proto::connect::{self, Target};
use tcfuzz_proto::v1;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub const TOKEN: &str = "test-token";

/// A valid litmus program (message passing, relaxed).
pub const PROGRAM: &str = "PTX MP\n{\n  x = 0;\n  P1:r0 = 0;\n}\n P0@cta 0,gpu 0      | P1@cta 0,gpu 0       ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\nexists (P1:r0 == 1)\n";

pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl Server {
    pub async fn start(dir: &Path, lease_ms: u64) -> Server {
        Server::start_with(dir, Settings { lease_ms, idle_retry_ms: 50, ..Settings::default() }).await
    }

    pub async fn start_with(dir: &Path, settings: Settings) -> Server {
        let corpus = Corpus::open(dir).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let config = Config { token: Some(TOKEN.into()), tls: None, settings, reports: None };
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(serve(corpus, listener, config, async {
            let _ = stopped.await;
        }));
        Server { addr, stop: Some(stop), task }
    }

    pub fn target(&self, token: Option<&str>) -> Target {
        Target {
            url: format!("http://{}", self.addr),
            token: token.map(str::to_string),
            timeout: Some(Duration::from_secs(10)),
            ..Target::default()
        }
    }

    pub fn worker(&self) -> connect::Coordinator {
        self.target(Some(TOKEN)).coordinator().unwrap()
    }

    pub fn admin(&self) -> connect::Admin {
        self.target(Some(TOKEN)).admin().unwrap()
    }

    /// Stops gracefully and waits until the corpus is closed.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

pub async fn register(c: &mut connect::Coordinator, cores: u32) -> v1::RegisterResponse {
    let r = v1::RegisterRequest { cores, version: tcfuzz_proto::protocol_version().into(), name: "test".into(), ..Default::default() };
    c.register(r).await.unwrap().into_inner()
}

pub async fn create(a: &mut connect::Admin, programs: u64, job_programs: u64) -> u64 {
    let r = v1::CreateCampaignRequest { name: "t".into(), seed: 7, programs, job_programs, ..Default::default() };
    a.create_campaign(r).await.unwrap().into_inner().campaign
}

pub async fn lease(c: &mut connect::Coordinator, worker: &str, n: u32) -> Vec<v1::Job> {
    let r = v1::LeaseJobsRequest { worker_id: worker.into(), max_jobs: n };
    c.lease_jobs(r).await.unwrap().into_inner().jobs
}

/// A complete, empty result for a generation job.
pub fn result(job: &v1::Job) -> v1::JobResult {
    let Some(v1::job::Work::Generate(g)) = &job.work else { panic!("not a generation job: {job:?}") };
    v1::JobResult {
        job_id: job.id,
        stats: Some(v1::Stats { programs: g.count, executions: 3 * g.count, ..Default::default() }),
        ..Default::default()
    }
}

pub fn range(job: &v1::Job) -> std::ops::Range<u64> {
    let Some(v1::job::Work::Generate(g)) = &job.work else { panic!("not a generation job: {job:?}") };
    g.first_index..g.first_index + g.count
}

pub async fn report(c: &mut connect::Coordinator, worker: &str, results: Vec<v1::JobResult>) -> Vec<v1::Recording> {
    let r = v1::ReportResultsRequest { worker_id: worker.into(), results, returned_job_ids: vec![] };
    c.report_results(r).await.unwrap().into_inner().acks.into_iter().map(|a| v1::Recording::try_from(a.recording).unwrap()).collect()
}

pub async fn campaign(a: &mut connect::Admin, id: u64) -> v1::CampaignInfo {
    a.campaign_status(v1::CampaignStatusRequest { campaign: id }).await.unwrap().into_inner().campaigns.remove(0)
}

/// Waits (bounded) until `done` holds for the campaign.
pub async fn wait_for(a: &mut connect::Admin, id: u64, what: &str, done: impl Fn(&v1::CampaignInfo) -> bool) -> v1::CampaignInfo {
    for _ in 0..200 {
        let c = campaign(a, id).await;
        if done(&c) {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("campaign {id}: {what} did not happen within 5 s: {:?}", campaign(a, id).await);
}

/// A valid exploration request of two parts (the coordinator cannot tell whether they cover the
/// program's tree: that is the client's checker's word).
pub fn exploration() -> v1::ExploreProgramRequest {
    v1::ExploreProgramRequest {
        program: PROGRAM.into(),
        model: "ptx".into(),
        loop_bound: 2,
        detect_duplicates: true,
        subtrees: vec!["subtree 00ff:0:0.0".into(), "subtree 00ff:0:0.1.2".into()],
        name: "mp".into(),
        max_states: 2,
        slice_ms: 0,
    }
}

/// A part verdict of `complete` executions in one final state (where the condition holds).
pub fn part(complete: u64) -> v1::PartVerdict {
    v1::PartVerdict {
        complete,
        duplicates_counted: true,
        state_names: vec!["P1:r0".into()],
        states: vec![v1::FinalState { values: vec![1], executions: complete }],
        positive: 1,
        ..Default::default()
    }
}

pub fn part_result(job: &v1::Job, p: v1::PartVerdict) -> v1::JobResult {
    v1::JobResult { job_id: job.id, part: Some(p), ..Default::default() }
}
