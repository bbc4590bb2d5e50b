//! What a sleep on tokio's millisecond wheel is late by on this machine, measured on a
//! thread and runtime of its own while a test runs: the reference a test compares its
//! own lateness with, so a loaded machine moves both sides alike and no wall-clock
//! bound is needed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Sleeps of `each` on tokio's wheel, one after another, until [`WheelReference::stop`].
pub struct WheelReference {
    done: Arc<AtomicBool>,
    thread: JoinHandle<Duration>,
}

impl WheelReference {
    pub fn start(each: Duration) -> WheelReference {
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a current-thread runtime builds");
            rt.block_on(async {
                let mut late = Vec::new();
                while late.is_empty() || !stop.load(Ordering::Relaxed) {
                    let began = Instant::now();
                    tokio::time::sleep(each).await;
                    late.push(began.elapsed() - each);
                }
                late.sort();
                late[late.len() / 2]
            })
        });
        WheelReference { done, thread }
    }

    /// The median lateness of the sleeps so far.
    pub fn stop(self) -> Duration {
        self.done.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .expect("the reference thread does not panic")
    }
}
