//! The gRPC services: check the request ([`crate::validate`]), hand it to the ledger, return its
//! answer. Errors become a [`Status`] in one place (`error.rs`).

use std::sync::Arc;

use tcfuzz_corpus::Corpus;
use tcfuzz_proto::v1::{self, admin_server::Admin, coordinator_server::Coordinator};
use tonic::{Request, Response, Status};

use crate::error::{ServiceError, invalid};
use crate::ledger::{Ledger, Op};
use crate::state::now_ms;
use crate::validate;

/// The worker protocol.
pub struct CoordinatorService {
    pub(crate) ledger: Ledger,
}

/// The admin protocol.
pub struct AdminService {
    pub(crate) ledger: Ledger,
    pub(crate) corpus: Arc<Corpus>,
}

type Answer<T> = Result<Response<T>, Status>;

/// Runs blocking work (parsing programs, reading the store) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ServiceError> + Send + 'static) -> Result<T, ServiceError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] a blocking task failed: {e}")))?
}

#[tonic::async_trait]
impl Coordinator for CoordinatorService {
    async fn register(&self, request: Request<v1::RegisterRequest>) -> Answer<v1::RegisterResponse> {
        let r = request.into_inner();
        validate::register(&r)?;
        Ok(Response::new(self.ledger.call(|reply| Op::Register(r, reply)).await?))
    }

    async fn lease_jobs(&self, request: Request<v1::LeaseJobsRequest>) -> Answer<v1::LeaseJobsResponse> {
        let r = request.into_inner();
        validate::lease(&r)?;
        Ok(Response::new(self.ledger.call(|reply| Op::Lease(r, reply)).await?))
    }

    async fn heartbeat(&self, request: Request<v1::HeartbeatRequest>) -> Answer<v1::HeartbeatResponse> {
        let r = request.into_inner();
        let r = if r.checking.is_some() {
            blocking(move || validate::heartbeat(&r).map(|()| r)).await?
        } else {
            validate::heartbeat(&r)?;
            r
        };
        Ok(Response::new(self.ledger.call(|reply| Op::Heartbeat(r, reply)).await?))
    }

    async fn report_results(&self, request: Request<v1::ReportResultsRequest>) -> Answer<v1::ReportResultsResponse> {
        let r = request.into_inner();
        let report = blocking(move || validate::report(r)).await?;
        Ok(Response::new(self.ledger.call(|reply| Op::Report(report, reply)).await?))
    }

    async fn seed_pool(&self, request: Request<v1::SeedPoolRequest>) -> Answer<v1::SeedPoolResponse> {
        let r = request.into_inner();
        validate::worker_id(&r.worker_id, "worker_id")?;
        let seeds = self.ledger.call(|reply| Op::SeedPool(r, reply)).await?;
        // Copied here, not on the ledger's thread: a pool may hold megabytes of programs.
        Ok(Response::new(v1::SeedPoolResponse { seeds: seeds.as_ref().clone() }))
    }
}

/// Discrepancies per page at most, and by default.
const DEFAULT_LIST: u32 = 100;

fn to_proto(d: tcfuzz_corpus::Discrepancy, full: bool) -> v1::Discrepancy {
    let is_minimized = d.minimized.is_some();
    v1::Discrepancy {
        kind: validate::kind_to_proto(d.kind) as i32,
        signature: d.signature,
        first_seen_unix_ms: d.first_seen_ms,
        last_seen_unix_ms: d.last_seen_ms,
        count: d.count,
        campaigns: d.campaigns,
        program: if full { d.program } else { String::new() },
        minimized: if full { d.minimized.unwrap_or_default() } else { String::new() },
        is_minimized,
        sides: if full { d.sides.into_iter().map(|s| v1::Side { name: s.name, verdict: s.verdict }).collect() } else { Vec::new() },
    }
}

/// A page token: the last discrepancy shown, `kind NUL signature` in hex.
fn page_token(d: &tcfuzz_corpus::Discrepancy) -> String {
    format!("{}\0{}", d.kind, d.signature).bytes().map(|b| format!("{b:02x}")).collect()
}

#[tonic::async_trait]
impl Admin for AdminService {
    async fn create_campaign(&self, request: Request<v1::CreateCampaignRequest>) -> Answer<v1::CreateCampaignResponse> {
        let r = request.into_inner();
        validate::create_campaign(&r)?;
        Ok(Response::new(self.ledger.call(|reply| Op::CreateCampaign(r, reply)).await?))
    }

    async fn stop_campaign(&self, request: Request<v1::StopCampaignRequest>) -> Answer<v1::StopCampaignResponse> {
        let id = request.into_inner().campaign;
        Ok(Response::new(self.ledger.call(|reply| Op::StopCampaign(id, reply)).await?))
    }

    async fn campaign_status(&self, request: Request<v1::CampaignStatusRequest>) -> Answer<v1::CampaignStatusResponse> {
        let id = request.into_inner().campaign;
        Ok(Response::new(self.ledger.call(|reply| Op::Status(id, reply)).await?))
    }

    async fn list_discrepancies(&self, request: Request<v1::ListDiscrepanciesRequest>) -> Answer<v1::ListDiscrepanciesResponse> {
        let r = request.into_inner();
        let kind = match r.kind {
            0 => None,
            k => Some(validate::kind(k, "kind")?),
        };
        let limit = match r.limit {
            0 => DEFAULT_LIST,
            n if n <= validate::MAX_LIST => n,
            n => return Err(invalid!("limit: {n} is more than {}", validate::MAX_LIST).into()),
        } as usize;
        let after = if r.page_token.is_empty() { None } else { Some(page_position(&r.page_token)?) };
        let corpus = self.corpus.clone();
        let page = blocking(move || {
            let mut out: Vec<tcfuzz_corpus::Discrepancy> = Vec::new();
            let mut next = String::new();
            for d in corpus.discrepancies() {
                let d = d?;
                // The store lists by (kind name, signature): skip up to the page's start.
                if after.as_ref().is_some_and(|(k, s)| (d.kind.name(), d.signature.as_str()) <= (k.as_str(), s.as_str())) {
                    continue;
                }
                if kind.is_some_and(|k| k != d.kind) || (r.campaign != 0 && !d.campaigns.contains(&r.campaign)) {
                    continue;
                }
                if let Some(last) = out.last()
                    && out.len() == limit
                {
                    next = page_token(last);
                    break;
                }
                out.push(d);
            }
            Ok(v1::ListDiscrepanciesResponse {
                discrepancies: out.into_iter().map(|d| to_proto(d, false)).collect(),
                next_page_token: next,
            })
        })
        .await?;
        Ok(Response::new(page))
    }

    async fn get_discrepancy(&self, request: Request<v1::GetDiscrepancyRequest>) -> Answer<v1::Discrepancy> {
        let r = request.into_inner();
        let (kind, signature) = validate::discrepancy_key(r.kind, &r.signature)?;
        let corpus = self.corpus.clone();
        let d = blocking(move || {
            corpus.discrepancy(kind, &signature)?.ok_or_else(|| ServiceError::NotFound(format!("no discrepancy `{kind}` / `{signature}`")))
        })
        .await?;
        Ok(Response::new(to_proto(d, true)))
    }

    async fn minimize(&self, request: Request<v1::MinimizeRequest>) -> Answer<v1::MinimizeResponse> {
        let r = request.into_inner();
        let (kind, signature) = validate::discrepancy_key(r.kind, &r.signature)?;
        Ok(Response::new(self.ledger.call(|reply| Op::Minimize(kind, signature, reply)).await?))
    }

    async fn render_report(&self, request: Request<v1::RenderReportRequest>) -> Answer<v1::RenderReportResponse> {
        let r = request.into_inner();
        let corpus = self.corpus.clone();
        let since = (r.since_ms > 0).then_some(r.since_ms);
        let rendered = blocking(move || {
            let now = now_ms();
            crate::reports::render(&corpus, now, since.map(|s| now.saturating_sub(s)))
        })
        .await?;
        if !r.no_record {
            crate::reports::record(&self.ledger, rendered.record).await?;
        }
        Ok(Response::new(rendered.answer))
    }

    async fn explore_program(&self, request: Request<v1::ExploreProgramRequest>) -> Answer<v1::ExploreProgramResponse> {
        let r = request.into_inner();
        let r = blocking(move || validate::explore_program(&r).map(|()| r)).await?;
        Ok(Response::new(self.ledger.call(|reply| Op::ExploreProgram(r, reply)).await?))
    }

    async fn exploration_status(&self, request: Request<v1::ExplorationStatusRequest>) -> Answer<v1::ExplorationStatusResponse> {
        let r = request.into_inner();
        let id = r.exploration;
        let mut status = self.ledger.call(|reply| Op::ExplorationStatus(id, reply)).await?;
        if status.state == v1::ExplorationState::Finished as i32 {
            let (corpus, total) = (self.corpus.clone(), status.parts_total);
            if r.first_part > total {
                return Err(invalid!("first_part: {} is past the exploration's {total} parts", r.first_part).into());
            }
            let first = r.first_part;
            status.parts = blocking(move || crate::explore::parts(&corpus, id, first..total, crate::explore::PARTS_PAGE_BYTES)).await?;
            status.next_part = first + status.parts.len() as u64;
        }
        Ok(Response::new(status))
    }
}

/// Where a page token points: the (kind name, signature) of the last discrepancy shown.
fn page_position(token: &str) -> Result<(String, String), ServiceError> {
    let bad = || invalid!("page_token: not a token this coordinator gave");
    if !token.len().is_multiple_of(2) || token.len() > 2 * (validate::MAX_SIGNATURE + 64) {
        return Err(bad());
    }
    let bytes =
        (0..token.len() / 2).map(|i| token.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect::<Option<Vec<u8>>>();
    let text = bytes.and_then(|b| String::from_utf8(b).ok()).ok_or_else(bad)?;
    let (kind, signature) = text.split_once('\0').ok_or_else(bad)?;
    Ok((kind.to_string(), signature.to_string()))
}
