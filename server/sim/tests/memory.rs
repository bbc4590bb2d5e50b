//! What an object costs the target in heap memory beyond its bytes: 100,000 PUTs of 1 KiB
//! over HTTP on loopback (so request buffers kept by mistake would show), with the heap
//! measured by a counting allocator around the one the keystorm binary uses (mimalloc),
//! charging each allocation the block mimalloc gives it (its size class, not the size
//! asked for: an allocation that tips past a class boundary shows). The figure includes
//! the keys (16 bytes each here, as keystorm's default keys are).
//!
//! One test in this binary: the allocator counts the whole process.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicI64, Ordering};

use keystorm_sim::{SimConfig, Storage};
use mimalloc::MiMalloc;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Heap bytes held, in mimalloc's blocks.
static HELD: AtomicI64 = AtomicI64::new(0);

/// The size of the block mimalloc gave `ptr` (null: nothing).
///
/// # Safety
/// `ptr` is null or a live allocation of [`MiMalloc`].
unsafe fn block(ptr: *const u8) -> i64 {
    if ptr.is_null() {
        return 0;
    }
    // SAFETY: as the caller promises.
    unsafe { MiMalloc.usable_size(ptr) as i64 }
}

struct Counting;

// SAFETY: every call is passed on to mimalloc unchanged; only counts are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: passed on as given; the result is null or mimalloc's.
        unsafe {
            let p = MiMalloc.alloc(layout);
            HELD.fetch_add(block(p), Ordering::Relaxed);
            p
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            let p = MiMalloc.alloc_zeroed(layout);
            HELD.fetch_add(block(p), Ordering::Relaxed);
            p
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` is a live allocation of ours, so of mimalloc's.
        unsafe {
            HELD.fetch_sub(block(ptr), Ordering::Relaxed);
            MiMalloc.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` is live until mimalloc's realloc succeeds; on failure it stays.
        unsafe {
            let old = block(ptr);
            let p = MiMalloc.realloc(ptr, layout, new_size);
            if !p.is_null() {
                HELD.fetch_add(block(p) - old, Ordering::Relaxed);
            }
            p
        }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const OBJECTS: u64 = 100_000;
const SIZE: usize = 1024;
/// Connections, each with this many requests in flight.
const CONNECTIONS: u64 = 4;
const PIPELINE: u64 = 16;

/// A connection that sends PUTs in batches and reads their answers.
struct Conn {
    stream: BufReader<TcpStream>,
    addr: String,
}

impl Conn {
    async fn open(addr: &str) -> Conn {
        Conn {
            stream: BufReader::new(TcpStream::connect(addr).await.unwrap()),
            addr: addr.to_string(),
        }
    }

    /// PUTs `/b/KEY` for each key, `PIPELINE` at a time; every answer must be 200.
    async fn put_all(&mut self, keys: impl Iterator<Item = u64>, body: &[u8]) {
        let keys: Vec<u64> = keys.collect();
        let mut out = Vec::new();
        for batch in keys.chunks(PIPELINE as usize) {
            out.clear();
            for k in batch {
                out.extend_from_slice(
                    format!(
                        "PUT /b/{} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n",
                        key(*k),
                        self.addr,
                        body.len()
                    )
                    .as_bytes(),
                );
                out.extend_from_slice(body);
            }
            self.stream.get_mut().write_all(&out).await.unwrap();
            for _ in batch {
                self.answer().await;
            }
        }
    }

    /// Reads one answer, which must be a 200.
    async fn answer(&mut self) {
        let mut status = String::new();
        self.stream.read_line(&mut status).await.unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status:?}");
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).await.unwrap();
    }
}

/// keystorm's default keys are 16 random base-62 characters; these are 16 hex digits
/// in an order unrelated to the PUTs' order.
fn key(i: u64) -> String {
    format!("{:016x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Heap bytes per object beyond its bytes, after `OBJECTS` PUTs of `SIZE` bytes.
async fn overhead_per_object(storage: Storage) -> f64 {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            storage,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(sim.store().create_bucket("b"));
    let addr = sim.addr().to_string();
    let body: Vec<u8> = (0..SIZE).map(|i| (i * 7) as u8).collect();
    let mut conns = Vec::new();
    for c in 0..CONNECTIONS {
        let mut conn = Conn::open(&addr).await;
        // Warm the connection up (buffers at their working size) with objects that are
        // counted before, not after.
        conn.put_all(
            (OBJECTS + c * PIPELINE)..(OBJECTS + (c + 1) * PIPELINE),
            &body,
        )
        .await;
        conns.push(conn);
    }
    let before = HELD.load(Ordering::SeqCst);
    let tasks: Vec<_> = conns
        .into_iter()
        .enumerate()
        .map(|(c, mut conn)| {
            let body = body.clone();
            tokio::spawn(async move {
                let keys = (0..OBJECTS).filter(move |k| k % CONNECTIONS == c as u64);
                conn.put_all(keys, &body).await;
                conn
            })
        })
        .collect();
    let mut conns = Vec::new();
    for t in tasks {
        conns.push(t.await.unwrap());
    }
    let after = HELD.load(Ordering::SeqCst);
    assert_eq!(
        sim.object_count("b"),
        Some(OBJECTS + CONNECTIONS * PIPELINE)
    );
    let payload = match storage {
        Storage::Memory => OBJECTS as i64 * SIZE as i64,
        Storage::SizeOnly => 0,
    };
    drop(conns);
    sim.shutdown().await;
    (after - before - payload) as f64 / OBJECTS as f64
}

/// Waits until the heap is back to within a few MiB of `baseline`: a sim that was shut
/// down frees its objects once its connection tasks have ended, which happens on the
/// runtime's threads after `shutdown` returns. Measuring the next sim before that would
/// count those frees against it.
async fn settle(baseline: i64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let held = HELD.load(Ordering::SeqCst);
        if held <= baseline + (4 << 20) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the heap stayed {} bytes above where it was before the first sim",
            held - baseline
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_cost_their_bytes_and_key_plus_a_small_fixed_overhead() {
    let baseline = HELD.load(Ordering::SeqCst);
    let memory = overhead_per_object(Storage::Memory).await;
    settle(baseline).await;
    let size_only = overhead_per_object(Storage::SizeOnly).await;
    eprintln!(
        "heap per 1 KiB object beyond its bytes: memory {memory:.1} B, size-only {size_only:.1} B"
    );
    // Each object's 16-byte key is held somewhere: a figure below that would mean the
    // count caught frees that were not this sim's.
    assert!(
        memory >= 16.0 && size_only >= 16.0,
        "implausible: memory {memory:.1} B, size-only {size_only:.1} B"
    );
    assert!(
        memory <= 128.0,
        "memory mode holds {memory:.1} bytes per object beyond its 1 KiB"
    );
    assert!(
        size_only <= 64.0,
        "size-only mode holds {size_only:.1} bytes per object"
    );
}
