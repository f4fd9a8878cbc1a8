//! A Tile IR litmus program as a Tile IR module (bytecode through `cutile-ir`, which `tileiras`
//! compiles).
//!
//! - One entry `tb<k>` per tile-block thread `k`, so that NVIDIA's lowering of each thread can be
//!   read back on its own ([`super::lift`]). Its parameters: one `tile<ptr<i32>>` per tile
//!   location (in the order of [`Module::locations`]), then `out`.
//! - A tile access of elements `e1..em` is one pointer op on `offset(broadcast(x), [e1..em])`
//!   (Tile IR spec §8 pointer ops: `load_ptr_tko`, `store_ptr_tko`, `atomic_rmw_tko`) with the
//!   access's memory ordering and scope (§7.2, §7.3) and its token operands (`join_tokens` when
//!   there are several, §7.5). Shapes are powers of two: a list of another length is padded with
//!   its first element, masked off.
//! - At the end, every tile register is stored (weak, no token) to `out`, register after register,
//!   so that the compiler keeps each loaded value and the lifter learns which load made it.
//!
//! Values are 32-bit integers. Not emitted: PTX threads beside tile blocks, and atomics whose
//! operation has no integer Tile IR mode.

use std::collections::BTreeMap;

use cutile_ir::builder::{OpBuilder, append_op, build_single_block_region};
use cutile_ir::bytecode::Opcode;
use cutile_ir::ir::{
    Attribute, BlockId, DenseElements, FuncType, Location as Loc, Module as IrModule, PointerType, RegionId, ScalarType, TileElementType,
    TileType, Type, Value as IrValue,
};
use tcfuzz_litmus::*;

use crate::EmitError;

/// The module and what the lifter needs to read the compiled code back.
pub struct Module {
    pub ir: IrModule,
    /// Tile locations, in parameter order: name and number of elements.
    pub locations: Vec<(String, usize)>,
    /// Per entry (`tb<k>` for thread `k`): its thread's name and its registers in `out` order,
    /// with their element counts.
    pub entries: Vec<Entry>,
}

pub struct Entry {
    pub name: String,
    pub thread: String,
    pub registers: Vec<(String, usize)>,
}

/// Memory ordering and scope attributes (Tile IR bytecode enums, as `tileiras` reads them).
fn ordering(o: TileOrdering) -> i64 {
    match o {
        TileOrdering::Weak => 0,
        TileOrdering::Relaxed => 1,
        TileOrdering::Acquire => 2,
        TileOrdering::Release => 3,
        TileOrdering::AcqRel => 4,
    }
}

fn scope(s: TileScope) -> i64 {
    match s {
        TileScope::TileBlock => 0,
        TileScope::Device => 1,
        TileScope::Sys => 2,
    }
}

/// The add mode of `atomic_rmw_tko` (see [`mode`]): the harness's spin barrier uses it too.
const RMW_ADD: i64 = 3;

/// `atomic_rmw_tko` modes as `tileiras` 13.5 lowers them (read off its PTX: 0 and, 1 or, 2 xor,
/// 3 add, 5 max.s32, 6 min.s32, 9 exch; 4 is the float add).
fn mode(op: AtomOp, span: Span) -> Result<i64, EmitError> {
    Ok(match op {
        AtomOp::And => 0,
        AtomOp::Or => 1,
        AtomOp::Xor => 2,
        AtomOp::Add => RMW_ADD,
        AtomOp::Max => 5,
        AtomOp::Min => 6,
        AtomOp::Exch => 9,
        other => return Err(EmitError::unsupported(span, format!("Tile IR has no integer atomic mode for {other:?}"))),
    })
}

fn i32_tile(n: usize) -> Type {
    Type::Tile(TileType { shape: vec![n as i64], element_type: TileElementType::Scalar(ScalarType::I32) })
}

fn ptr_tile(n: Option<usize>) -> Type {
    Type::Tile(TileType {
        shape: n.map_or(vec![], |n| vec![n as i64]),
        element_type: TileElementType::Pointer(Box::new(PointerType { pointee: ScalarType::I32 })),
    })
}

fn mask_tile(n: usize) -> Type {
    Type::Tile(TileType { shape: vec![n as i64], element_type: TileElementType::Scalar(ScalarType::I1) })
}

fn segments(v: &[i64]) -> Attribute {
    Attribute::Array(v.iter().map(|x| Attribute::i32(*x)).collect())
}

struct Builder<'a> {
    m: IrModule,
    block: BlockId,
    params: Vec<IrValue>,
    locations: &'a [(String, usize)],
    tokens: BTreeMap<String, IrValue>,
    /// Register → (value, its element count).
    regs: BTreeMap<String, (IrValue, usize)>,
    /// A token every memory operation of a thread waits for besides its own (the runnable
    /// kernel's spin barrier: without it the compiler may move the thread's accesses before the
    /// barrier, Tile IR spec §7.12.1); `None` in the per-thread module.
    after: Option<IrValue>,
}

impl Builder<'_> {
    fn op(&mut self, b: OpBuilder) -> Vec<IrValue> {
        let (op, r) = b.build(&mut self.m);
        append_op(&mut self.m, self.block, op);
        r
    }

    fn constant_i32(&mut self, vals: &[i64]) -> IrValue {
        let ty = i32_tile(vals.len());
        let data = vals.iter().flat_map(|v| (*v as i32).to_le_bytes()).collect();
        self.op(OpBuilder::new(Opcode::Constant, Loc::Unknown)
            .attr("value", Attribute::DenseElements(DenseElements { element_type: ty.clone(), shape: vec![vals.len() as i64], data }))
            .result(ty))[0]
    }

    /// A 0-d `i32` tile.
    fn scalar_i32(&mut self, v: i64) -> IrValue {
        let ty = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        let data = (v as i32).to_le_bytes().to_vec();
        self.op(OpBuilder::new(Opcode::Constant, Loc::Unknown)
            .attr("value", Attribute::DenseElements(DenseElements { element_type: ty.clone(), shape: vec![], data }))
            .result(ty))[0]
    }

    /// `a × b` of two 0-d `i32` tiles (no overflow flags: the products are small).
    fn mul(&mut self, a: IrValue, b: IrValue) -> IrValue {
        let ty = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        self.op(OpBuilder::new(Opcode::MulI, Loc::Unknown).operand(a).operand(b).attr("overflow", Attribute::i32(0)).result(ty))[0]
    }

    /// `a predicate b` of two 0-d `i32` tiles, unsigned (signedness 0): a 0-d `i1` tile.
    fn compare_unsigned(&mut self, a: IrValue, predicate: i64, b: IrValue) -> IrValue {
        self.op(OpBuilder::new(Opcode::CmpI, Loc::Unknown)
            .operand(a)
            .operand(b)
            .attr("comparison_predicate", Attribute::i32(predicate))
            .attr("signedness", Attribute::i32(0))
            .result(Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I1) })))[0]
    }

    fn add(&mut self, a: IrValue, b: IrValue) -> IrValue {
        let scalar = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        self.op(OpBuilder::new(Opcode::AddI, Loc::Unknown).operand(a).operand(b).attr("overflow", Attribute::i32(0)).result(scalar))[0]
    }

    /// `if cond { then } else {}`, `then` built by `body` in the region's block.
    fn when(&mut self, cond: IrValue, body: impl FnOnce(&mut Self) -> Result<(), EmitError>) -> Result<(), EmitError> {
        let outer = self.block;
        let (then, then_block, _) = build_single_block_region(&mut self.m, &[]);
        self.block = then_block;
        body(self)?;
        if !matches!(self.m.block(self.block).ops.last().map(|&o| self.m.op(o).opcode), Some(Opcode::Break)) {
            self.op(OpBuilder::new(Opcode::Yield, Loc::Unknown));
        }
        let (otherwise, else_block, _) = build_single_block_region(&mut self.m, &[]);
        self.block = else_block;
        self.op(OpBuilder::new(Opcode::Yield, Loc::Unknown));
        self.block = outer;
        self.op(OpBuilder::new(Opcode::If, Loc::Unknown).operand(cond).region(then).region(otherwise));
        Ok(())
    }

    /// The harness's spin barrier (GPUHarbor's `barrierPct`): the tile block adds one to the
    /// counter at `counter` (relaxed, device scope), then reads it until it reaches `target` or
    /// it has read `cap` times, in a `loop` carrying the number of reads (Tile IR spec §8
    /// control flow: `break` leaves it, `continue` starts the next iteration). Returns the last
    /// read's token and the number of reads: the thread's accesses wait for the token, and the
    /// count is stored for the host, so that the compiler can neither move the accesses before
    /// the loop nor drop the loop.
    fn spin_barrier(&mut self, counter: IrValue, target: IrValue, cap: IrValue) -> Result<(IrValue, IrValue), EmitError> {
        let scalar = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        let relaxed_device = |b: OpBuilder| {
            b.attr("memory_ordering_semantics", Attribute::i32(ordering(TileOrdering::Relaxed)))
                .attr("memory_scope", Attribute::i32(scope(TileScope::Device)))
        };
        let one = self.scalar_i32(1);
        let zero = self.scalar_i32(0);
        let arrive =
            OpBuilder::new(Opcode::AtomicRMW, Loc::Unknown).operand(counter).operand(one).result(scalar.clone()).result(Type::Token);
        let arrived =
            self.op(relaxed_device(arrive).attr("mode", Attribute::i32(RMW_ADD)).attr("operandSegmentSizes", segments(&[1, 1, 0, 0])));
        let outer = self.block;
        let (body, body_block, carried) = build_single_block_region(&mut self.m, &[scalar.clone(), Type::Token]);
        self.block = body_block;
        let (reads, token) = (carried[0], carried[1]);
        // The counter is read by adding zero: `tileiras` issues an atomic from one thread and
        // hands the value to the whole tile block, so every thread leaves the loop together (its
        // plain loads are per thread, and threads that read different values would part at the
        // tile block's internal `bar.sync`).
        let read = OpBuilder::new(Opcode::AtomicRMW, Loc::Unknown)
            .operand(counter)
            .operand(zero)
            .operand(token)
            .result(scalar.clone())
            .result(Type::Token);
        let seen = self.op(relaxed_device(read).attr("mode", Attribute::i32(RMW_ADD)).attr("operandSegmentSizes", segments(&[1, 1, 0, 1])));
        let next = self.add(reads, one);
        let reached = self.compare_unsigned(seen[0], GREATER_EQUAL, target);
        let capped = self.compare_unsigned(next, GREATER_EQUAL, cap);
        let done = self.op(OpBuilder::new(Opcode::OrI, Loc::Unknown)
            .operand(reached)
            .operand(capped)
            .result(Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I1) })))[0];
        self.when(done, |b| {
            b.op(OpBuilder::new(Opcode::Break, Loc::Unknown).operand(next).operand(seen[1]));
            Ok(())
        })?;
        self.op(OpBuilder::new(Opcode::Continue, Loc::Unknown).operand(next).operand(seen[1]));
        self.block = outer;
        let out = self.op(OpBuilder::new(Opcode::Loop, Loc::Unknown)
            .operand(zero)
            .operand(arrived[1])
            .region(body)
            .result(scalar)
            .result(Type::Token));
        Ok((out[1], out[0]))
    }

    fn sub(&mut self, a: IrValue, b: IrValue) -> IrValue {
        let scalar = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        self.op(OpBuilder::new(Opcode::SubI, Loc::Unknown).operand(a).operand(b).attr("overflow", Attribute::i32(0)).result(scalar))[0]
    }

    /// A plain (weak) load of the `i32` at `ptr + at`: the control table's entries.
    fn load_word(&mut self, ptr: IrValue, at: IrValue) -> IrValue {
        let scalar = Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
        let p = self.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(ptr).operand(at).result(ptr_tile(None)))[0];
        self.op(OpBuilder::new(Opcode::LoadPtrTko, Loc::Unknown)
            .operand(p)
            .result(scalar)
            .result(Type::Token)
            .attr("memory_ordering_semantics", Attribute::i32(0))
            .attr("operandSegmentSizes", segments(&[1, 0, 0, 0])))[0]
    }

    /// [`STRESS_ACCESSES`] relaxed device-scope loads and stores, alternating, of scratch line
    /// `line`, each store writing back what the load before it read: a stressing tile block's
    /// body, and a testing one's pre-stress.
    fn stress(&mut self, line: IrValue, scratch: IrValue) {
        let words = self.scalar_i32(STRESS_LINE_WORDS as i64);
        let start = self.mul(line, words);
        let base = self.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(scratch).operand(start).result(ptr_tile(None)))[0];
        let n = STRESS_LINE_WORDS;
        let one = self.op(OpBuilder::new(Opcode::Reshape, Loc::Unknown).operand(base).result(ptr_tile(Some(1))));
        let wide = self.op(OpBuilder::new(Opcode::Broadcast, Loc::Unknown).operand(one[0]).result(ptr_tile(Some(n))));
        let offsets = self.constant_i32(&(0..n as i64).collect::<Vec<_>>());
        let ptrs = self.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(wide[0]).operand(offsets).result(ptr_tile(Some(n))))[0];
        let relaxed_device = |b: OpBuilder| {
            b.attr("memory_ordering_semantics", Attribute::i32(ordering(TileOrdering::Relaxed)))
                .attr("memory_scope", Attribute::i32(scope(TileScope::Device)))
        };
        // Each access waits for the one before (a token chain, Tile IR spec §7.5): without
        // tokens nothing orders them, and NVIDIA's compiler merged the 64 into three. Loads come
        // first, so that every loaded value is stored (a dead last load would be dropped).
        let mut token = self.op(OpBuilder::new(Opcode::MakeToken, Loc::Unknown).result(Type::Token))[0];
        for _ in 0..STRESS_ACCESSES / 2 {
            let ld = OpBuilder::new(Opcode::LoadPtrTko, Loc::Unknown).operand(ptrs).operand(token).result(i32_tile(n)).result(Type::Token);
            let r = self.op(relaxed_device(ld).attr("operandSegmentSizes", segments(&[1, 0, 0, 1])));
            let st = OpBuilder::new(Opcode::StorePtrTko, Loc::Unknown).operand(ptrs).operand(r[0]).operand(r[1]).result(Type::Token);
            token = self.op(relaxed_device(st).attr("operandSegmentSizes", segments(&[1, 1, 0, 1])))[0];
        }
    }

    fn constant_mask(&mut self, live: usize, n: usize) -> IrValue {
        let ty = mask_tile(n);
        let data = (0..n).map(|i| u8::from(i < live)).collect();
        self.op(OpBuilder::new(Opcode::Constant, Loc::Unknown)
            .attr("value", Attribute::DenseElements(DenseElements { element_type: ty.clone(), shape: vec![n as i64], data }))
            .result(ty))[0]
    }

    /// Pointers to the elements of `addr`, padded to a power of two, and the mask of real lanes.
    fn pointers(&mut self, addr: &TileAddr, span: Span) -> Result<(IrValue, usize, Option<IrValue>), EmitError> {
        let Some(loc) = self.locations.iter().position(|(n, _)| *n == addr.name) else {
            return Err(EmitError::unsupported(span, format!("`{}` is not a tile location", addr.name)));
        };
        let elements: Vec<i64> = match &addr.elements {
            Some(e) => e.iter().map(|&i| i64::from(i)).collect(),
            None => (0..self.locations[loc].1 as i64).collect(),
        };
        let m = elements.len();
        let n = m.next_power_of_two();
        let mut idx = elements.clone();
        idx.resize(n, elements[0]);
        let base = self.params[loc];
        let one = self.op(OpBuilder::new(Opcode::Reshape, Loc::Unknown).operand(base).result(ptr_tile(Some(1))));
        let wide = self.op(OpBuilder::new(Opcode::Broadcast, Loc::Unknown).operand(one[0]).result(ptr_tile(Some(n))));
        let offsets = self.constant_i32(&idx);
        let ptrs = self.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(wide[0]).operand(offsets).result(ptr_tile(Some(n))));
        let mask = (m != n).then(|| self.constant_mask(m, n));
        Ok((ptrs[0], m, mask))
    }

    /// The token an access depends on: none, one, or several joined.
    fn deps(&mut self, deps: &[Token], span: Span) -> Result<Option<IrValue>, EmitError> {
        let mut vals: Vec<IrValue> = self.after.into_iter().collect();
        for d in deps {
            match self.tokens.get(d) {
                Some(v) => vals.push(*v),
                None => return Err(EmitError::unsupported(span, format!("token <{d}> used before it exists"))),
            }
        }
        Ok(match vals.len() {
            0 => None,
            1 => Some(vals[0]),
            _ => {
                let mut b = OpBuilder::new(Opcode::JoinTokens, Loc::Unknown).result(Type::Token);
                for v in vals {
                    b = b.operand(v);
                }
                Some(self.op(b)[0])
            }
        })
    }

    /// The value tile of a store or atomic: immediates or a register, padded to `n`.
    fn value(&mut self, v: &TileValue, m: usize, n: usize, span: Span) -> Result<IrValue, EmitError> {
        match v {
            TileValue::Tile(vals) => {
                if vals.len() != m {
                    return Err(EmitError::unsupported(span, format!("a tile of {} values for {m} elements", vals.len())));
                }
                let mut vals = vals.clone();
                vals.resize(n, vals[0]);
                Ok(self.constant_i32(&vals))
            }
            TileValue::Reg(r) => match self.regs.get(r) {
                Some(&(v, len)) if len == m => Ok(v),
                Some(&(_, len)) => Err(EmitError::unsupported(span, format!("register `{r}` holds {len} elements, the access has {m}"))),
                None => Err(EmitError::unsupported(span, format!("register `{r}` is read before it is written"))),
            },
        }
    }

    fn mem_attrs(b: OpBuilder, o: TileOrdering, s: Option<TileScope>) -> OpBuilder {
        let b = b.attr("memory_ordering_semantics", Attribute::i32(ordering(o)));
        match s {
            Some(s) => b.attr("memory_scope", Attribute::i32(scope(s))),
            None => b,
        }
    }

    /// Emits the body of tile-block thread `t`; its registers in the order they are first written.
    fn thread(&mut self, t: &Thread) -> Result<Vec<String>, EmitError> {
        let mut order: Vec<String> = Vec::new();
        for s in &t.body {
            match &s.kind {
                StmtKind::Instr(Instr::Tile(op)) => {
                    self.stmt(op, s.span)?;
                    if let TileOp::Load { dst, .. } | TileOp::Atomic { dst, .. } = op
                        && !order.contains(dst)
                    {
                        order.push(dst.clone());
                    }
                }
                StmtKind::Instr(_) => return Err(EmitError::unsupported(s.span, "a PTX instruction in a tile block")),
                StmtKind::Label(_) => return Err(EmitError::unsupported(s.span, "a label in a tile block")),
            }
        }
        Ok(order)
    }

    /// Stores every register of `order` (weak, no token) to `out`, one after the other: the
    /// registers with their element counts.
    fn store_registers(&mut self, out: IrValue, order: &[String]) -> Vec<(String, usize)> {
        let mut registers = Vec::new();
        let mut at = 0i64;
        for r in order {
            let (v, m) = self.regs[r];
            let n = m.next_power_of_two();
            let one = self.op(OpBuilder::new(Opcode::Reshape, Loc::Unknown).operand(out).result(ptr_tile(Some(1))));
            let wide = self.op(OpBuilder::new(Opcode::Broadcast, Loc::Unknown).operand(one[0]).result(ptr_tile(Some(n))));
            let mut idx: Vec<i64> = (at..at + m as i64).collect();
            idx.resize(n, at);
            let offsets = self.constant_i32(&idx);
            let ptrs = self.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(wide[0]).operand(offsets).result(ptr_tile(Some(n))));
            let mask = (m != n).then(|| self.constant_mask(m, n));
            let mut st = OpBuilder::new(Opcode::StorePtrTko, Loc::Unknown).operand(ptrs[0]).operand(v).result(Type::Token);
            if let Some(mk) = mask {
                st = st.operand(mk);
            }
            let st = st
                .attr("memory_ordering_semantics", Attribute::i32(0))
                .attr("operandSegmentSizes", segments(&[1, 1, i64::from(mask.is_some()), 0]));
            self.op(st);
            registers.push((r.clone(), m));
            at += m as i64;
        }
        registers
    }

    fn stmt(&mut self, op: &TileOp, span: Span) -> Result<(), EmitError> {
        match op {
            TileOp::MakeToken { token } => {
                let t = self.op(OpBuilder::new(Opcode::MakeToken, Loc::Unknown).result(Type::Token));
                self.tokens.insert(token.clone(), t[0]);
            }
            TileOp::JoinTokens { token, deps } => {
                let t = self.deps(deps, span)?;
                let t = match t {
                    Some(t) if deps.len() > 1 => t,
                    _ => {
                        // One token joined with nothing: join it with a fresh one.
                        let fresh = self.op(OpBuilder::new(Opcode::MakeToken, Loc::Unknown).result(Type::Token))[0];
                        let mut b = OpBuilder::new(Opcode::JoinTokens, Loc::Unknown).result(Type::Token).operand(fresh);
                        if let Some(t) = t {
                            b = b.operand(t);
                        }
                        self.op(b)[0]
                    }
                };
                self.tokens.insert(token.clone(), t);
            }
            TileOp::Load { ordering: o, scope: s, dst, token, addr, deps } => {
                let (ptrs, m, mask) = self.pointers(addr, span)?;
                let n = m.next_power_of_two();
                let dep = self.deps(deps, span)?;
                let mut b = OpBuilder::new(Opcode::LoadPtrTko, Loc::Unknown).operand(ptrs).result(i32_tile(n)).result(Type::Token);
                if let Some(mk) = mask {
                    b = b.operand(mk);
                }
                if let Some(d) = dep {
                    b = b.operand(d);
                }
                let b = Self::mem_attrs(b, *o, *s)
                    .attr("operandSegmentSizes", segments(&[1, i64::from(mask.is_some()), 0, i64::from(dep.is_some())]));
                let r = self.op(b);
                self.regs.insert(dst.clone(), (r[0], m));
                if let Some(t) = token {
                    self.tokens.insert(t.clone(), r[1]);
                }
            }
            TileOp::Store { ordering: o, scope: s, token, addr, value, deps } => {
                let (ptrs, m, mask) = self.pointers(addr, span)?;
                let n = m.next_power_of_two();
                let v = self.value(value, m, n, span)?;
                let dep = self.deps(deps, span)?;
                let mut b = OpBuilder::new(Opcode::StorePtrTko, Loc::Unknown).operand(ptrs).operand(v).result(Type::Token);
                if let Some(mk) = mask {
                    b = b.operand(mk);
                }
                if let Some(d) = dep {
                    b = b.operand(d);
                }
                let b = Self::mem_attrs(b, *o, *s)
                    .attr("operandSegmentSizes", segments(&[1, 1, i64::from(mask.is_some()), i64::from(dep.is_some())]));
                let r = self.op(b);
                if let Some(t) = token {
                    self.tokens.insert(t.clone(), r[0]);
                }
            }
            TileOp::Atomic { ordering: o, scope: s, op, dst, token, addr, value, deps } => {
                let (ptrs, m, mask) = self.pointers(addr, span)?;
                let n = m.next_power_of_two();
                let v = self.value(value, m, n, span)?;
                let dep = self.deps(deps, span)?;
                let mut b =
                    OpBuilder::new(Opcode::AtomicRMW, Loc::Unknown).operand(ptrs).operand(v).result(i32_tile(n)).result(Type::Token);
                if let Some(mk) = mask {
                    b = b.operand(mk);
                }
                if let Some(d) = dep {
                    b = b.operand(d);
                }
                // An atomic always has a scope in Tile IR (§7.2); the parser requires one.
                let b = Self::mem_attrs(b, *o, Some(s.unwrap_or(TileScope::Device)))
                    .attr("mode", Attribute::i32(mode(*op, span)?))
                    .attr("operandSegmentSizes", segments(&[1, 1, i64::from(mask.is_some()), i64::from(dep.is_some())]));
                let r = self.op(b);
                self.regs.insert(dst.clone(), (r[0], m));
                if let Some(t) = token {
                    self.tokens.insert(t.clone(), r[1]);
                }
            }
        }
        Ok(())
    }
}

/// The tile locations of `p` (tiles, and scalars that tile operations access), in declaration
/// order, then those used without a declaration.
fn tile_locations(p: &Program) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for l in &p.locations {
        if let LocationKind::Global = l.kind {
            let n = match &l.init {
                Some(Value::Tile(v)) => v.len(),
                _ => 1,
            };
            out.push((l.name.clone(), n.max(1)));
        }
    }
    for s in p.threads.iter().flat_map(|t| &t.body) {
        if let StmtKind::Instr(Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. })) = &s.kind
            && !out.iter().any(|(n, _)| *n == addr.name)
        {
            let n = addr.elements.as_ref().and_then(|e| e.iter().max()).map_or(1, |m| *m as usize + 1);
            out.push((addr.name.clone(), n));
        }
    }
    out
}

/// Adds entry `name` with parameters `params` and body `region` to the module.
fn add_entry(ir: &mut IrModule, name: &str, params: Vec<Type>, region: RegionId) {
    let (entry, _) = OpBuilder::new(Opcode::Entry, Loc::Unknown)
        .attr("sym_name", Attribute::String(name.to_string()))
        .attr("function_type", Attribute::Type(Type::Func(FuncType { inputs: params, results: vec![] })))
        .region(region)
        .build(ir);
    ir.functions.push(entry);
}

/// Builds the module of a Tile IR program.
pub fn module(p: &Program) -> Result<Module, EmitError> {
    if let Some(t) = p.threads.iter().find(|t| t.kind() != ThreadKind::TileBlock) {
        return Err(EmitError::unsupported(t.span, format!("{} is a PTX thread: Tile IR emission takes tile-block threads only", t.name)));
    }
    let locations = tile_locations(p);
    let mut ir = IrModule::new("tcfuzz_litmus");
    let mut entries = Vec::new();
    for (k, t) in p.threads.iter().enumerate() {
        let param_types: Vec<Type> = (0..=locations.len()).map(|_| ptr_tile(None)).collect();
        let (region, block, params) = build_single_block_region(&mut ir, &param_types);
        let mut b = Builder { m: ir, block, params, locations: &locations, tokens: BTreeMap::new(), regs: BTreeMap::new(), after: None };
        let order = b.thread(t)?;
        let out = *b.params.last().expect("[tcfuzz internal bug] entries have an out parameter");
        let registers = b.store_registers(out, &order);
        b.op(OpBuilder::new(Opcode::Return, Loc::Unknown));
        ir = b.m;
        let name = format!("tb{k}");
        add_entry(&mut ir, &name, param_types, region);
        entries.push(Entry { name, thread: t.name.clone(), registers });
    }
    Ok(Module { ir, locations, entries })
}

/// The entry of [`runnable`].
pub const RUN_ENTRY: &str = "litmus";

/// Fewest elements between two instances' copies of a location (128 bytes: one cache line).
const RUN_STRIDE_MIN: usize = 32;

/// A Tile IR program as one kernel that runs many test instances side by side (`tcfuzz gpu
/// run`). Entry [`RUN_ENTRY`], with the parameters of [`module`]'s entries (one pointer per tile
/// location, then `out`) and two more, `ctl` and `scratch`. Tile block `b` reads its entry of the
/// control table, [`ctl_words`] words from `ctl + CTL_HEADER + b × ctl_words`: its *role*, a
/// pre-stress word and one slot per location ([`CTL_HEADER`] says what comes before: the spin
/// barrier's words).
/// - a role `r` below [`STRESS_ROLE`] runs thread `r mod T` of instance `r div T` (T threads),
///   each thread's body in an `if` on its index (Tile IR spec §8 control flow), as [`module`]
///   emits it. Its copy of location `l` starts `slot_l × stride` elements after `l`'s parameter
///   (the host gives every thread of an instance the same slots, and may permute instances over
///   slots per location: GPUHarbor's location permutation); role `r` stores its registers at
///   `out + r × out_words`. A pre-stress word `1 + l` makes it first stress scratch line `l` as a
///   stressing block does (GPUHarbor's pre-stress), `0` not;
/// - a role `STRESS_ROLE + l` stresses memory (the harness's stressing CTAs, GPUHarbor's memory
///   stress): [`STRESS_ACCESSES`] relaxed device-scope loads and stores, alternating and chained
///   by tokens, of line `l` of `scratch` ([`STRESS_LINE_WORDS`] words), each store writing back
///   what the load before it read, so that the compiler keeps them all.
///
/// The host decides the roles of a launch: in order without stress, shuffled and mixed with
/// stressing blocks under it (`run::tile`).
pub struct Runnable {
    pub ir: IrModule,
    pub locations: Vec<(String, usize)>,
    /// Per thread, in program order: its name and registers (as [`Module::entries`]).
    pub threads: Vec<Entry>,
    pub stride: usize,
    pub out_words: usize,
}

/// `cmpi` predicates (Tile IR bytecode, as `cutile-ir` numbers them).
const EQUAL: i64 = 0;
const LESS_THAN: i64 = 2;
const GREATER_EQUAL: i64 = 5;

/// The first role of a stressing tile block (`ctl` entries from here on name a scratch line).
pub const STRESS_ROLE: u32 = 1 << 24;
/// Words of one scratch line (64 bytes).
pub const STRESS_LINE_WORDS: usize = 16;
/// Stores and loads, together, of one stressing tile block.
pub const STRESS_ACCESSES: usize = 64;

/// Words of one tile block's entry in the control table of a program with `locations` tile
/// locations: role, pre-stress, then one slot per location ([`Runnable`]).
pub fn ctl_words(locations: usize) -> usize {
    2 + locations
}

/// Words before the control table's first entry: the spin barrier's counter, its target (`0`:
/// no barrier this launch) and its cap on reads, and one unused word. A testing block that met
/// the barrier leaves the number of its reads in its entry's word 1.
pub const CTL_HEADER: usize = 4;

/// Builds the [`Runnable`] kernel of a Tile IR program.
pub fn runnable(p: &Program) -> Result<Runnable, EmitError> {
    // The per-thread module says how many words each thread's registers take.
    let per_thread = module(p)?;
    let out_words = per_thread.entries.iter().map(|e| e.registers.iter().map(|(_, m)| m).sum::<usize>()).max().unwrap_or(0).max(1);
    let locations = per_thread.locations;
    let stride = locations.iter().map(|(_, n)| *n).max().unwrap_or(1).max(RUN_STRIDE_MIN).next_power_of_two();
    let threads = p.threads.len();
    let mut ir = IrModule::new("tcfuzz_litmus");
    // Locations, then `out`, `ctl` and `scratch`.
    let param_types: Vec<Type> = (0..locations.len() + 3).map(|_| ptr_tile(None)).collect();
    let (region, block, params) = build_single_block_region(&mut ir, &param_types);
    let mut b = Builder {
        m: ir,
        block,
        params: params.clone(),
        locations: &locations,
        tokens: BTreeMap::new(),
        regs: BTreeMap::new(),
        after: None,
    };
    let scalar = || Type::Tile(TileType { shape: vec![], element_type: TileElementType::Scalar(ScalarType::I32) });
    let ids = b.op(OpBuilder::new(Opcode::GetTileBlockId, Loc::Unknown).result(scalar()).result(scalar()).result(scalar()));
    let block_id = ids[0];
    let (out_param, ctl, scratch) = (params[locations.len()], params[locations.len() + 1], params[locations.len() + 2]);
    let entry_words = b.scalar_i32(ctl_words(locations.len()) as i64);
    let header = b.scalar_i32(CTL_HEADER as i64);
    let entry_at = b.mul(block_id, entry_words);
    let entry_at = b.add(entry_at, header);
    let ctl_at = b.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(ctl).operand(entry_at).result(ptr_tile(None)))[0];
    let zero = b.scalar_i32(0);
    let role = b.load_word(ctl_at, zero);
    let first_stress = b.scalar_i32(i64::from(STRESS_ROLE));
    let testing = b.compare_unsigned(role, LESS_THAN, first_stress);
    let kernel_block = b.block;
    let (test_region, test_block, _) = build_single_block_region(&mut b.m, &[]);
    b.block = test_block;
    let t = b.scalar_i32(threads as i64);
    // Unsigned (signedness 0).
    let k =
        b.op(OpBuilder::new(Opcode::RemI, Loc::Unknown).operand(role).operand(t).attr("signedness", Attribute::i32(0)).result(scalar()))[0];
    // Pre-stress: `if pre != 0 { stress(line pre - 1) }` (unsigned `0 < pre`); then the spin
    // barrier, `if target != 0`.
    let one = b.scalar_i32(1);
    let pre = b.load_word(ctl_at, one);
    let pre_on = b.compare_unsigned(zero, LESS_THAN, pre);
    b.when(pre_on, |b| {
        let line = b.sub(pre, one);
        b.stress(line, scratch);
        Ok(())
    })?;
    let target = b.load_word(ctl, one);
    let barrier_on = b.compare_unsigned(zero, LESS_THAN, target);
    // `if target != 0 { spin; store the reads in the entry's word 1 } `, yielding the barrier's
    // token (a fresh one without a barrier) for the thread's accesses to wait for.
    let test_block = b.block;
    let (then, then_block, _) = build_single_block_region(&mut b.m, &[]);
    b.block = then_block;
    let two = b.scalar_i32(2);
    let cap = b.load_word(ctl, two);
    let (after, reads) = b.spin_barrier(ctl, target, cap)?;
    let reads_at = b.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(ctl_at).operand(one).result(ptr_tile(None)))[0];
    let st = OpBuilder::new(Opcode::StorePtrTko, Loc::Unknown).operand(reads_at).operand(reads).operand(after).result(Type::Token);
    let after = b.op(st.attr("memory_ordering_semantics", Attribute::i32(0)).attr("operandSegmentSizes", segments(&[1, 1, 0, 1])))[0];
    b.op(OpBuilder::new(Opcode::Yield, Loc::Unknown).operand(after));
    let (otherwise, else_block, _) = build_single_block_region(&mut b.m, &[]);
    b.block = else_block;
    let fresh = b.op(OpBuilder::new(Opcode::MakeToken, Loc::Unknown).result(Type::Token))[0];
    b.op(OpBuilder::new(Opcode::Yield, Loc::Unknown).operand(fresh));
    b.block = test_block;
    b.after =
        Some(b.op(OpBuilder::new(Opcode::If, Loc::Unknown).operand(barrier_on).region(then).region(otherwise).result(Type::Token))[0]);
    let stride_c = b.scalar_i32(stride as i64);
    for (l, &base) in params.iter().take(locations.len()).enumerate() {
        let at = b.scalar_i32(2 + l as i64);
        let slot = b.load_word(ctl_at, at);
        let shift = b.mul(slot, stride_c);
        b.params[l] = b.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(base).operand(shift).result(ptr_tile(None)))[0];
    }
    let words = b.scalar_i32(out_words as i64);
    let record = b.mul(role, words);
    let out = b.op(OpBuilder::new(Opcode::Offset, Loc::Unknown).operand(out_param).operand(record).result(ptr_tile(None)))[0];
    let mut entries = Vec::new();
    for (index, th) in p.threads.iter().enumerate() {
        let this = b.scalar_i32(index as i64);
        let cond = b.compare_unsigned(k, EQUAL, this);
        let mut registers = Vec::new();
        b.when(cond, |b| {
            b.tokens.clear();
            b.regs.clear();
            let order = b.thread(th)?;
            registers = b.store_registers(out, &order);
            Ok(())
        })?;
        entries.push(Entry { name: RUN_ENTRY.to_string(), thread: th.name.clone(), registers });
    }
    b.op(OpBuilder::new(Opcode::Yield, Loc::Unknown));
    let (stress_region, stress_block, _) = build_single_block_region(&mut b.m, &[]);
    b.block = stress_block;
    let line = b.sub(role, first_stress);
    b.stress(line, scratch);
    b.op(OpBuilder::new(Opcode::Yield, Loc::Unknown));
    b.block = kernel_block;
    b.op(OpBuilder::new(Opcode::If, Loc::Unknown).operand(testing).region(test_region).region(stress_region));
    b.op(OpBuilder::new(Opcode::Return, Loc::Unknown));
    ir = b.m;
    add_entry(&mut ir, RUN_ENTRY, param_types, region);
    Ok(Runnable { ir, locations, threads: entries, stride, out_words })
}

#[cfg(test)]
mod tests {
    use super::{RUN_ENTRY, module, runnable};

    /// Pointer parameters of each entry of `text` (MLIR), by entry name.
    fn parameters(text: &str) -> Vec<(String, usize)> {
        text.lines()
            .filter_map(|l| l.trim_start().strip_prefix("entry @"))
            .map(|l| (l.split('(').next().unwrap_or_default().to_string(), l.matches(": tile<ptr<i32>>").count()))
            .collect()
    }

    /// The per-thread entries take a pointer per tile location, then `out`; the runnable entry
    /// takes `ctl` and `scratch` besides. (An edit for the stress once widened both kinds.)
    #[test]
    fn entries_take_the_locations_and_out_and_the_runnable_one_ctl_and_scratch_too() {
        let p = tcfuzz_litmus::parse(include_str!("../../../examples/tileir/MP+rel+acq-tokens.litmus")).expect("MP parses");
        let per_thread = module(&p).expect("MP is emitted");
        assert_eq!(per_thread.locations.len(), 2);
        assert_eq!(parameters(&per_thread.ir.to_mlir_text()), [("tb0".to_string(), 3), ("tb1".to_string(), 3)]);
        let run = runnable(&p).expect("MP is emitted");
        assert_eq!(parameters(&run.ir.to_mlir_text()), [(RUN_ENTRY.to_string(), 5)]);
    }
}
