//! The fast evaluator allocates nothing per position once its buffers have grown to the
//! batch size: nothing at all on the small-batch kernel, and only a fixed handful per call
//! (the `gemm` crate's packing buffers) on the large-batch one.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use burn::tensor::Device;
use oware_zero::game::{Position, RuleSet};
use oware_zero::net::{ModelConfig, NetEvaluator};
use oware_zero::rng::Rng;
use oware_zero::search::evaluator::{Evaluation, Evaluator};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn fast_evaluation_does_not_allocate_after_warm_up() {
    let rules = RuleSet::abapa();
    let cfg = ModelConfig::default();
    let model = cfg.init(&Device::flex());
    let mut e = NetEvaluator::new(&model, &cfg).unwrap();
    // Positions from random play.
    let mut rng = Rng::new(1);
    let mut pos = Vec::new();
    let mut p = Position::start();
    while pos.len() < 512 {
        let m = p.legal_moves(rules);
        if m == 0 || p.status(rules).is_some() {
            p = Position::start();
            continue;
        }
        pos.push(p);
        p.apply(rules, rng.pick_bit(m));
    }
    let legal: Vec<u8> = pos.iter().map(|p| p.legal_moves(rules)).collect();
    let mut out = vec![Evaluation::default(); 512];
    e.evaluate(rules, &pos, &legal, &mut out);
    let mut counts = Vec::new();
    for n in [512, 1, 64, 300, 7] {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        e.evaluate(rules, &pos[..n], &legal[..n], &mut out[..n]);
        counts.push((n, ALLOCATIONS.load(Ordering::Relaxed) - before));
    }
    for &(n, c) in &counts {
        let limit = if n <= 8 { 0 } else { 8 };
        assert!(c <= limit, "batch {n}: {c} allocations ({counts:?})");
    }
    assert!(out[0].priors.iter().sum::<f32>() > 0.99);
}
