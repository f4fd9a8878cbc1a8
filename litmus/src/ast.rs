//! The program IR: what a litmus file means, independent of how it was written.
//!
//! The IR keeps exactly what the text says (qualifiers the user omitted stay omitted), so that
//! printing and parsing again gives back an equal program. Defaults the PTX ISA implies (an `atom`
//! without `.sem` is `.relaxed`, without a scope `.gpu`) are resolved by the accessors the checker
//! uses (`effective_*`), never by rewriting the IR.

use std::fmt;

/// A position in the source text, 1-based. `Span::default()` (0:0) marks a program built in code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Which language the header names. A `TileIR` program may still contain PTX threads (the Tile IR
/// spec §7.11 "PTX interoperability"); a `PTX` program contains only PTX threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    Ptx,
    TileIr,
}

/// A whole litmus test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Every comment of the source, each attached to the item it belongs with ([`Comment`]), in
    /// the order the printer writes them: `tcfuzz fmt` loses none. The `//` lines before the
    /// header ([`CommentPlace::Header`]) are where examples state what the spec says about them.
    pub comments: Vec<Comment>,
    pub arch: Arch,
    pub name: String,
    /// The quoted doc strings after the header line, without their quotes.
    pub docs: Vec<String>,
    pub locations: Vec<Location>,
    pub reg_inits: Vec<RegInit>,
    pub threads: Vec<Thread>,
    pub condition: Condition,
}

/// A comment: no meaning, but the printer writes it back where it belongs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Comment {
    /// The text between `//` and the end of the line, or between `(*` and `*)`, as written.
    pub text: String,
    pub style: CommentStyle,
    pub place: CommentPlace,
    /// Written at the end of its item's line (`st x, 1 ; // why`) rather than on a line of its own
    /// before the item.
    pub trailing: bool,
}

impl Comment {
    /// A `//` comment line before the header, as examples state their expectations (`text`
    /// without the `//`).
    pub fn header(text: impl Into<String>) -> Self {
        Comment { text: text.into(), style: CommentStyle::Line, place: CommentPlace::Header, trailing: false }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommentStyle {
    /// `// text`
    Line,
    /// `(* text *)`
    Block,
    /// Text between the header and the initial state that is no doc string, which Dat3M's grammar
    /// skips (`LitmusPTX.g4`, rule `main`): kept as written.
    Skipped,
}

/// The item a comment is attached to: it is printed before that item (or at the end of its line
/// when [`Comment::trailing`]). Statements of PTX-only programs are printed in rows, so their
/// comments are attached to the row ([`Program`]s from the parser name the row's first thread, or
/// its last for a trailing comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommentPlace {
    /// Before the header line.
    Header,
    /// The `{` that opens the initial state.
    InitStart,
    /// Location `k` of [`Program::locations`].
    Location(usize),
    /// Register initialisation `k` of [`Program::reg_inits`].
    RegInit(usize),
    /// The `}` that closes the initial state.
    InitEnd,
    /// The header of thread `t` (in rows: the header row).
    Thread(usize),
    /// Statement `index` of thread `thread`.
    Stmt { thread: usize, index: usize },
    /// The `}` that closes the block of thread `t`.
    ThreadEnd(usize),
    /// The final condition.
    Condition,
    /// After the final condition.
    End,
}

/// A memory location (or a tile of them) declared in the initial state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub name: String,
    pub kind: LocationKind,
    /// `None` where the declaration gives no value (aliases, mbarriers, or a location that is only
    /// used by the program: herd7 and Dat3M initialise those to 0).
    pub init: Option<Value>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocationKind {
    /// Global memory, the default (`x = 0;`).
    Global,
    /// Shared memory of one CTA (`s @ shared cta 0 = 0;`).
    Shared { cta: u32, gpu: u32 },
    /// A virtual alias of another location through a proxy (`t @ texture aliases x;`), as in the
    /// Dat3M / mixedproxy formats.
    Alias { proxy: AliasProxy, target: String },
    /// An mbarrier object in a CTA's shared memory (`bar @ mbarrier cta 0 count 2;`); without
    /// `count` it must be initialised by `mbarrier.init` before use.
    Mbarrier { cta: u32, gpu: u32, count: Option<u32> },
    /// A Tensor Memory region of one CTA (`d @ tmem cta 0 lanes 0-31 cols 0-31 = 0;`). The region
    /// holds one abstract value (DESIGN §2: TMEM column ranges hold one value each).
    Tmem { cta: u32, gpu: u32, lanes: Range, cols: Range },
}

/// The proxy a virtual alias goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AliasProxy {
    Generic,
    Texture,
    Surface,
    Constant,
}

/// An inclusive range `lo-hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub lo: u32,
    pub hi: u32,
}

/// A value: an integer, or a tile of integers (`[0, 1]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Int(i64),
    Tile(Vec<i64>),
}

/// An initial register value (`P0:r0 = 0;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInit {
    pub thread: String,
    pub reg: String,
    pub value: Value,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// `P0`, `P1`, ... as written.
    pub name: String,
    pub placement: Placement,
    pub body: Vec<Stmt>,
    pub span: Span,
}

impl Thread {
    pub fn kind(&self) -> ThreadKind {
        match self.placement {
            Placement::Ptx { .. } => ThreadKind::Ptx,
            Placement::TileBlock { .. } => ThreadKind::TileBlock,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadKind {
    Ptx,
    TileBlock,
}

/// Where a thread runs. Scopes, CTA pairs and TMEM lane quarters depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// A PTX thread: `P0@warp 1,cta 0,cluster 0,gpu 0`. `cluster` defaults to a cluster of its own
    /// per CTA (a launch without clusters), `warp` to warp 0 of the CTA.
    Ptx { gpu: u32, cluster: Option<u32>, cta: u32, warp: Option<u32> },
    /// A Tile IR tile-block thread: `P0@tlb 0, dev 0`.
    TileBlock { dev: u32, tlb: u32 },
}

impl Placement {
    /// The cluster of a PTX thread: the declared one, or one of its own per CTA.
    pub fn effective_cluster(&self) -> Option<ClusterId> {
        match *self {
            Placement::Ptx { gpu, cluster, cta, .. } => Some(match cluster {
                Some(c) => ClusterId::Declared { gpu, cluster: c },
                None => ClusterId::OwnCta { gpu, cta },
            }),
            Placement::TileBlock { .. } => None,
        }
    }
}

/// Identity of a cluster: declared in the placement, or the implicit one-CTA cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterId {
    Declared { gpu: u32, cluster: u32 },
    OwnCta { gpu: u32, cta: u32 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    Label(String),
    Instr(Instr),
}

/// A register name as written (`r0`, `%r1`, `p`), or `_` where the ISA allows a sink.
pub type Reg = String;

/// A value operand: a register or an immediate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg),
    Imm(i64),
}

/// A memory operand: a location name, written `x` or `[x]` (the brackets are kept for printing).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub name: String,
    pub bracketed: bool,
}

/// Memory-ordering semantics of a generic-proxy access (PTX ISA §8.4 "Operation types").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// PTX scopes (PTX ISA §8.5 "Scope").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// PTX state spaces an access may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Global,
    /// `.shared` without a sub-qualifier, which means `.shared::cta`.
    Shared,
    SharedCta,
    SharedCluster,
}

/// Which proxy a load or store goes through (Dat3M / mixedproxy dialect: `tld`, `suld`, `sust`,
/// `cold`; the generic proxy is plain `ld`/`st`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessProxy {
    Generic,
    Texture,
    Surface,
    Constant,
}

/// Data types accepted on memory instructions. They do not change the abstract semantics (values
/// are integers) but are kept so emitted PTX can be faithful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    B32,
    B64,
    U32,
    U64,
    S32,
    S64,
}

/// Atomic operations of `atom` / `red` (PTX ISA §9.7.13.5). `Sub` is Dat3M dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    Sub,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Min,
    Max,
    Inc,
    Dec,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// `ld{.sem}{.scope}{.ss}{.type} r, x` (and `tld`/`suld`/`cold` for other proxies).
    Ld(Load),
    /// `st{.sem}{.scope}{.ss}{.type} x, v` (and `sust`).
    St(Store),
    /// `atom{.sem}{.scope}{.ss}.op{.type} r, x, v{, v2}`.
    Atom(Atomic),
    /// `red{.sem}{.scope}{.ss}.op{.type} x, v`.
    Red(Reduction),
    Fence(Fence),
    Barrier(Barrier),
    Mbarrier(Mbarrier),
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`.
    CpAsyncBulk(CpAsyncBulk),
    Tcgen05(Tcgen05),
    Tile(TileOp),
    /// `mov r, v`, or Dat3M's `ld r, 1` (a load of an immediate is a move).
    Mov {
        dst: Reg,
        src: Operand,
        dialect_ld: bool,
    },
    /// `add r, a, b` (Dat3M dialect register arithmetic).
    Add {
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `beq a, b, L` / `bne a, b, L`.
    Branch {
        cond: BranchCond,
        a: Operand,
        b: Operand,
        target: String,
    },
    /// `goto L`.
    Goto {
        target: String,
    },
    /// `assume.cmp a, b` (`cmp` one of `eq ne lt le gt ge`): the thread goes on only where
    /// `a cmp b` holds; an execution in which it does not is not an execution of the program
    /// (GenMC's `__VERIFIER_assume`). It adds no event.
    Assume {
        cmp: AssumeCmp,
        a: Operand,
        b: Operand,
    },
}

/// The comparison of an `assume` (signed, on the abstract integer values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssumeCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl AssumeCmp {
    pub const ALL: [AssumeCmp; 6] = [AssumeCmp::Eq, AssumeCmp::Ne, AssumeCmp::Lt, AssumeCmp::Le, AssumeCmp::Gt, AssumeCmp::Ge];

    /// The qualifier that names it (`eq` in `assume.eq`).
    pub fn name(self) -> &'static str {
        match self {
            AssumeCmp::Eq => "eq",
            AssumeCmp::Ne => "ne",
            AssumeCmp::Lt => "lt",
            AssumeCmp::Le => "le",
            AssumeCmp::Gt => "gt",
            AssumeCmp::Ge => "ge",
        }
    }

    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            AssumeCmp::Eq => a == b,
            AssumeCmp::Ne => a != b,
            AssumeCmp::Lt => a < b,
            AssumeCmp::Le => a <= b,
            AssumeCmp::Gt => a > b,
            AssumeCmp::Ge => a >= b,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchCond {
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Load {
    pub proxy: AccessProxy,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub ty: Option<DataType>,
    pub dst: Reg,
    pub addr: Addr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    pub proxy: AccessProxy,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub ty: Option<DataType>,
    pub addr: Addr,
    pub src: Operand,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atomic {
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub op: AtomOp,
    pub ty: Option<DataType>,
    pub dst: Reg,
    pub addr: Addr,
    pub a: Operand,
    /// The new value of `cas` (`atom.cas r, x, expected, new`).
    pub b: Option<Operand>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub op: AtomOp,
    pub ty: Option<DataType>,
    pub addr: Addr,
    pub a: Operand,
}

/// Default semantics/scope the ISA gives an access that names none (PTX ISA §9.7.9.8 `ld`:
/// "`.weak` is the default"; §9.7.13.5 `atom`: "`.relaxed` and `.gpu` are the defaults").
impl Atomic {
    pub fn effective_sem(&self) -> Sem {
        self.sem.unwrap_or(Sem::Relaxed)
    }
    pub fn effective_scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::Gpu)
    }
}

impl Reduction {
    pub fn effective_sem(&self) -> Sem {
        self.sem.unwrap_or(Sem::Relaxed)
    }
    pub fn effective_scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::Gpu)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `fence.sc.scope` / `fence.acq_rel.scope`; the scope is required (PTX ISA §9.7.13.4).
    Sc(Scope),
    AcqRel(Scope),
    /// `membar.cta|gl|sys`: semantically `fence.sc` at that scope (PTX ISA §9.7.13.4).
    Membar(Scope),
    /// `fence.proxy.alias` / `.texture` / `.surface` / `.constant` (the last three Dat3M dialect).
    Proxy(AliasProxy),
    /// `fence.proxy.async{.global|.shared::cta|.shared::cluster}`.
    ProxyAsync(Option<StateSpace>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// `bar{.cta}.sync a{, b}` / `barrier{.cta}.sync{.aligned} a{, b}`; Dat3M writes a third
    /// operand (the quorum) in its barrier tests.
    Sync { form: BarForm, operands: Vec<Operand> },
    /// `bar{.cta}.arrive a, b` / `barrier{.cta}.arrive{.aligned} a, b`.
    Arrive { form: BarForm, operands: Vec<Operand> },
    /// `barrier.cluster.arrive{.release|.relaxed}{.aligned}`.
    ClusterArrive { sem: Option<Sem>, aligned: bool },
    /// `barrier.cluster.wait{.acquire}{.aligned}`.
    ClusterWait { acquire: bool, aligned: bool },
}

/// How a CTA barrier was spelled: `bar.sync`, `bar.cta.sync`, `barrier.sync`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarForm {
    pub long: bool,
    pub cta: bool,
    pub aligned: bool,
}

/// mbarrier operations (PTX ISA §9.7.13.15).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mbarrier {
    /// `mbarrier.init{.shared{::cta}}.b64 [bar], count`.
    Init { space: Option<StateSpace>, addr: Addr, count: Operand },
    /// `mbarrier.arrive{.expect_tx}{.sem}{.scope}{.shared{::cta|::cluster}}.b64 state, [bar]{, n}`.
    Arrive(MbarrierArrive),
    /// `mbarrier.expect_tx{.sem}{.scope}{.space}.b64 [bar], tx`.
    ExpectTx { sem: Option<Sem>, scope: Option<Scope>, space: Option<StateSpace>, addr: Addr, tx: Operand },
    /// `mbarrier.try_wait` / `mbarrier.test_wait`, optionally `await`ed (loop until success).
    Wait(MbarrierWait),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MbarrierArrive {
    pub expect_tx: bool,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub state: Reg,
    pub addr: Addr,
    /// Arrival count (plain arrive) or transaction bytes (`.expect_tx`).
    pub count: Option<Operand>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MbarrierWait {
    /// `await` prefix: a first-class "loop until success" (DESIGN §2).
    pub blocking: bool,
    pub test: bool,
    pub parity: bool,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub space: Option<StateSpace>,
    pub dst: Reg,
    pub addr: Addr,
    /// The phase parity (with `.parity`) or the state register from an arrive.
    pub phase: Operand,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpAsyncBulk {
    pub dst_space: StateSpace,
    pub dst: Addr,
    pub src: Addr,
    pub size: Operand,
    pub mbar: Addr,
}

/// `cta_group::1` or `cta_group::2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtaGroup {
    One,
    Two,
}

/// `tcgen05.mma` kinds (PTX ISA §9.7.16.10.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    F16,
    Tf32,
    F8f6f4,
    I8,
    MxF8f6f4,
    MxF4,
    MxF4nvf4,
}

/// `tcgen05.cp` shapes (PTX ISA §9.7.16.9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpShape {
    S128x256b,
    S4x256b,
    S128x128b,
    S64x128b,
    S32x128b,
}

/// `tcgen05.ld` / `tcgen05.st` shapes (PTX ISA §9.7.16.8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdStShape {
    S16x64b,
    S16x128b,
    S16x256b,
    S32x32b,
    S16x32bx2,
}

/// The 5th-generation TensorCore instructions (PTX ISA §9.7.16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tcgen05 {
    /// `tcgen05.alloc.cta_group::N.sync.aligned{.shared::cta}.b32 [slot], ncols`.
    Alloc { group: CtaGroup, slot: Addr, ncols: Operand },
    /// `tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols` (taddr: a register holding the
    /// column address, or a TMEM region name).
    Dealloc { group: CtaGroup, taddr: Operand, region: Option<String>, ncols: Operand },
    /// `tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned`.
    RelinquishAllocPermit { group: CtaGroup },
    /// `tcgen05.mma.cta_group::N.kind::K [d], a, b, idesc, acc`: `a` is a TMEM region or a
    /// shared-memory location (descriptor), `b` a shared-memory location; `idesc` stands for the
    /// instruction descriptor (shape), `acc` for `enable-input-d`.
    Mma { group: CtaGroup, kind: MmaKind, d: Addr, a: Addr, b: Addr, idesc: i64, acc: Operand },
    /// `tcgen05.cp.cta_group::N.shape [d], s`.
    Cp { group: CtaGroup, shape: CpShape, d: Addr, src: Addr },
    /// `tcgen05.shift.cta_group::N.down [d]`.
    Shift { group: CtaGroup, d: Addr },
    /// `tcgen05.ld.sync.aligned.shape.num.b32 r, [d]`.
    Ld { shape: LdStShape, num: u32, pack: bool, dst: Reg, src: Addr },
    /// `tcgen05.st.sync.aligned.shape.num.b32 [d], r`.
    St { shape: LdStShape, num: u32, unpack: bool, dst: Addr, src: Operand },
    /// `tcgen05.commit.cta_group::N.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{, mask}`.
    Commit { group: CtaGroup, shared_cluster: bool, multicast: Option<Operand>, mbar: Addr },
    /// `tcgen05.wait::ld.sync.aligned` / `tcgen05.wait::st.sync.aligned`.
    Wait { st: bool },
    /// `tcgen05.fence::before_thread_sync` / `tcgen05.fence::after_thread_sync`.
    Fence { after: bool },
}

/// Tile IR memory ordering (Tile IR spec §7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileOrdering {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// Tile IR scopes (Tile IR spec §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TileScope {
    TileBlock,
    Device,
    Sys,
}

/// A token name as written, without its angle brackets (`<t1>` is `t1`).
pub type Token = String;

/// Which elements of a tile location an access touches: all of them in order, or a list of
/// element indices (possibly repeating, which makes a store overlap itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileAddr {
    pub name: String,
    pub elements: Option<Vec<u32>>,
}

/// Tile IR token-ordered operations (Tile IR spec §7.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileOp {
    /// `v, <t> = ld.ord{.scope} x{[i,...]}{, <t0>...}`.
    Load { ordering: TileOrdering, scope: Option<TileScope>, dst: Reg, token: Option<Token>, addr: TileAddr, deps: Vec<Token> },
    /// `<t> = st.ord{.scope} x{[i,...]}, v{, <t0>...}`.
    Store { ordering: TileOrdering, scope: Option<TileScope>, token: Option<Token>, addr: TileAddr, value: TileValue, deps: Vec<Token> },
    /// `v, <t> = atom.ord.scope.op x{[i,...]}, v{, <t0>...}`.
    Atomic {
        ordering: TileOrdering,
        scope: Option<TileScope>,
        op: AtomOp,
        dst: Reg,
        token: Option<Token>,
        addr: TileAddr,
        value: TileValue,
        deps: Vec<Token>,
    },
    /// `<t> = make_token`.
    MakeToken { token: Token },
    /// `<t> = join_tokens <a>, <b>, ...`.
    JoinTokens { token: Token, deps: Vec<Token> },
}

/// The value a tile store or atomic writes: an immediate tile, or a tile register.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TileValue {
    Tile(Vec<i64>),
    Reg(Reg),
}

/// The final condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    True,
    Atom(Cmp),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

/// `lhs == rhs` or `lhs != rhs` (`=` is accepted for `==`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cmp {
    pub lhs: Term,
    pub eq: bool,
    pub rhs: Term,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Const(Value),
    /// `P1:r0` or `1:r0`: the thread as written (`P1` or `1`) and the register.
    Reg {
        thread: String,
        reg: Reg,
    },
    /// `x`, or `x[i]` for one element of a tile.
    Loc {
        name: String,
        element: Option<u32>,
    },
}

impl Program {
    /// A copy with every span reset, so that programs can be compared for meaning: the printer
    /// lays a program out anew, so `parse(print(p))` equals `p` only up to positions.
    pub fn without_spans(&self) -> Program {
        let mut p = self.clone();
        for l in &mut p.locations {
            l.span = Span::default();
        }
        for r in &mut p.reg_inits {
            r.span = Span::default();
        }
        for t in &mut p.threads {
            t.span = Span::default();
            for s in &mut t.body {
                s.span = Span::default();
            }
        }
        p.condition.span = Span::default();
        erase_prop(&mut p.condition.prop);
        p
    }

    /// Same program up to source positions.
    pub fn same_as(&self, other: &Program) -> bool {
        self.without_spans() == other.without_spans()
    }
}

fn erase_prop(p: &mut Prop) {
    match p {
        Prop::True => {}
        Prop::Atom(c) => c.span = Span::default(),
        Prop::Not(a) => erase_prop(a),
        Prop::And(a, b) | Prop::Or(a, b) => {
            erase_prop(a);
            erase_prop(b);
        }
    }
}
