//! `WorkerPool`: threads kept between searches. Spawning a thread cost 60–100 µs at the
//! start of every search (a tenth of a 1 ms `go movetime 1`); waking one that sleeps on a
//! condition variable cost about 110 µs on a KVM guest, so a thread stays awake a while
//! after its job ([`LINGER`]) before it sleeps; the calling thread works meanwhile.
//!
//! [`WorkerPool::scope`] lends the pool's threads borrowed data, as `std::thread::scope`
//! does: it returns only once every thread has finished with it, on a panic too.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// A job handed to a pool thread: `call(ctx, index)`, where `ctx` points into the
/// caller's stack frame of [`WorkerPool::scope`], which outlives the job.
#[derive(Clone, Copy)]
struct Job {
    call: unsafe fn(*const (), usize),
    ctx: *const (),
    index: usize,
}

// SAFETY: `ctx` points to a `Ctx` whose items are `Send` and whose function is `Sync`
// (the bounds of `scope`), and `scope` waits for the job before its frame ends.
unsafe impl Send for Job {}

/// What a pool thread is asked to do.
enum Task {
    Wait,
    Run(Job),
    Quit,
}

/// One pool thread's mailbox.
struct Slot {
    task: Mutex<Task>,
    wake: Condvar,
    /// Set by `scope` when it hands a job, cleared by the thread when the job returned
    /// (the caller spins on it before it sleeps on `done`).
    busy: AtomicBool,
    done: Condvar,
    /// The job's panic, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Set with `Task::Quit`, so that a lingering thread quits at once.
    quit: AtomicBool,
}

/// Threads that run the jobs of [`WorkerPool::scope`], asleep between scopes.
pub struct WorkerPool {
    slots: Vec<Arc<Slot>>,
    threads: Vec<JoinHandle<()>>,
}

/// The borrowed data of a scope, seen through raw pointers by the pool's threads.
struct Ctx<'a, T, F> {
    items: *mut T,
    each: &'a F,
}

/// Runs `each(items[index])` for a `Ctx<T, F>` behind `ctx`.
///
/// # Safety
/// `ctx` points to a live `Ctx<T, F>`, and no other thread touches `items[index]`.
unsafe fn call<T, F: Fn(&mut T)>(ctx: *const (), index: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        let c = &*(ctx as *const Ctx<'_, T, F>);
        (c.each)(&mut *c.items.add(index));
    }
}

fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How long the caller spins (yielding) for the pool's jobs to end before it sleeps:
/// they end within one batch of the caller's own work.
const SPIN: std::time::Duration = std::time::Duration::from_millis(2);

impl WorkerPool {
    /// A pool of `n` threads (0: `scope` runs everything on the calling thread).
    pub fn new(n: usize) -> WorkerPool {
        let slots: Vec<Arc<Slot>> = (0..n)
            .map(|_| {
                Arc::new(Slot {
                    task: Mutex::new(Task::Wait),
                    wake: Condvar::new(),
                    busy: AtomicBool::new(false),
                    done: Condvar::new(),
                    panic: Mutex::new(None),
                    quit: AtomicBool::new(false),
                })
            })
            .collect();
        let threads = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let slot = slot.clone();
                std::thread::Builder::new()
                    .name(format!("search-{}", i + 1))
                    .spawn(move || serve(&slot))
                    .expect("cannot start a search thread")
            })
            .collect();
        WorkerPool { slots, threads }
    }

    /// Runs `each(&mut items[i])` on pool thread `i` (at most [`WorkerPool::len`] items)
    /// while `main` runs on the calling thread; returns `main`'s result once every job
    /// has returned. A job's panic is resumed here, after the others have returned.
    pub fn scope<T: Send, F: Fn(&mut T) + Sync, R>(
        &mut self,
        items: &mut [T],
        each: &F,
        main: impl FnOnce() -> R,
    ) -> R {
        assert!(items.len() <= self.slots.len(), "more jobs than threads");
        let ctx = Ctx {
            items: items.as_mut_ptr(),
            each,
        };
        let slots = &self.slots[..items.len()];
        for (index, slot) in slots.iter().enumerate() {
            let mut task = lock(&slot.task);
            *task = Task::Run(Job {
                call: call::<T, F>,
                ctx: &ctx as *const Ctx<'_, T, F> as *const (),
                index,
            });
            // Set under the lock, after the job: a lingering thread that sees `busy`
            // finds the job, and cannot have finished it before `busy` was set.
            slot.busy.store(true, Ordering::Release);
            drop(task);
            slot.wake.notify_one();
        }
        // Waits for the jobs even if `main` panics: they borrow `ctx` and `items`.
        struct Join<'a>(&'a [Arc<Slot>]);
        impl Drop for Join<'_> {
            fn drop(&mut self) {
                for slot in self.0 {
                    wait(slot);
                }
            }
        }
        let join = Join(slots);
        let r = main();
        drop(join);
        for slot in slots {
            if let Some(p) = lock(&slot.panic).take() {
                resume_unwind(p);
            }
        }
        r
    }
}

/// After a job, a pool thread stays awake this long (yielding) before it sleeps on its
/// condition variable. Waking a sleeping thread took about 110 µs on a 2-vCPU KVM guest
/// (from the call to the thread's first instruction, `oware bench engine --budgets`), a
/// tenth of a 1 ms search; searches in quick succession (fast games, the app's analysis,
/// a match's alternating engines) find the thread awake. Yielding hands the core to
/// any other runnable thread meanwhile. Intel's OpenMP runtime waits 200 ms this way by
/// default; 10 ms covered every gap between the benchmark's searches.
const LINGER: std::time::Duration = std::time::Duration::from_millis(10);

/// Spins (yielding) until `slot` is handed a job or told to quit, at most [`LINGER`].
fn linger(slot: &Slot) {
    let until = std::time::Instant::now() + LINGER;
    while !slot.busy.load(Ordering::Acquire)
        && !slot.quit.load(Ordering::Acquire)
        && std::time::Instant::now() < until
    {
        std::thread::yield_now();
    }
}

/// Waits until `slot`'s job has returned: spinning first, then asleep.
fn wait(slot: &Slot) {
    let start = std::time::Instant::now();
    while slot.busy.load(Ordering::Acquire) {
        if start.elapsed() >= SPIN {
            let mut task = lock(&slot.task);
            while slot.busy.load(Ordering::Acquire) {
                task = slot.done.wait(task).unwrap_or_else(|e| e.into_inner());
            }
            return;
        }
        std::thread::yield_now();
    }
}

/// A pool thread: runs the jobs of its slot until told to quit.
fn serve(slot: &Slot) {
    loop {
        linger(slot);
        let job = {
            let mut task = lock(&slot.task);
            loop {
                match std::mem::replace(&mut *task, Task::Wait) {
                    Task::Wait => task = slot.wake.wait(task).unwrap_or_else(|e| e.into_inner()),
                    Task::Run(job) => break job,
                    Task::Quit => return,
                }
            }
        };
        // SAFETY: `scope` keeps the job's context alive until `busy` is cleared below.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe {
            (job.call)(job.ctx, job.index)
        }));
        if let Err(p) = r {
            *lock(&slot.panic) = Some(p);
        }
        let _task = lock(&slot.task);
        slot.busy.store(false, Ordering::Release);
        slot.done.notify_all();
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        for slot in &self.slots {
            *lock(&slot.task) = Task::Quit;
            slot.quit.store(true, Ordering::Release);
            slot.wake.notify_one();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_run_once_on_its_own_thread_while_main_runs() {
        let mut pool = WorkerPool::new(3);
        for round in 0..50u64 {
            let mut items: Vec<(u64, Option<std::thread::ThreadId>)> =
                (0..3).map(|i| (i, None)).collect();
            let main_id = std::thread::current().id();
            let r = pool.scope(
                &mut items,
                &|it: &mut (u64, Option<std::thread::ThreadId>)| {
                    it.0 += 100 * round;
                    it.1 = Some(std::thread::current().id());
                },
                || round * 2,
            );
            assert_eq!(r, round * 2);
            for (i, it) in items.iter().enumerate() {
                assert_eq!(it.0, i as u64 + 100 * round);
                assert_ne!(it.1, Some(main_id));
                assert!(it.1.is_some());
            }
            assert_ne!(items[0].1, items[1].1);
        }
    }

    #[test]
    fn scope_waits_for_slow_jobs_and_resumes_their_panic() {
        let mut pool = WorkerPool::new(2);
        let mut items = [0u32, 1];
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(
                &mut items,
                &|x: &mut u32| {
                    std::thread::sleep(std::time::Duration::from_millis(5 * (*x as u64 + 1)));
                    if *x == 1 {
                        panic!("job one");
                    }
                    *x = 7;
                },
                || (),
            )
        }));
        assert!(r.is_err(), "the job's panic reaches the caller");
        assert_eq!(items[0], 7, "the other job ran to its end");
        // The pool still serves.
        let mut more = [1u32];
        pool.scope(&mut more, &|x: &mut u32| *x += 1, || ());
        assert_eq!(more, [2]);
    }
}
