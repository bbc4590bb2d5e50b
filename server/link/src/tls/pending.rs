//! The TLS handshakes under way on the HTTPS listener, capped per peer and in all. A
//! cap reached makes room instead of refusing the newcomer: the oldest handshake under
//! way (the peer's own, for the per-peer cap) is let go. A handshake that will finish
//! does so in milliseconds, so the oldest is the one least likely to; refusing
//! newcomers instead would let sockets that never say anything lock everyone out.
//!
//! An entry lives only while its handshake is under way, so memory follows the caps,
//! never the number of connections ever made.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// How many handshakes may be under way at once (each at least 1).
#[derive(Debug, Clone, Copy)]
pub struct PendingCaps {
    /// From one peer: an IPv4 address, or an IPv6 /64.
    pub per_peer: usize,
    /// From all peers together.
    pub in_all: usize,
}

/// The handshakes under way.
pub struct PendingHandshakes {
    caps: PendingCaps,
    book: Mutex<Book>,
}

/// One handshake under way, from its admission until this is dropped.
pub struct PendingHandshake {
    number: u64,
    pending: Arc<PendingHandshakes>,
    /// Closed (its sender dropped) once the handshake is let go.
    let_go: oneshot::Receiver<()>,
}

#[derive(Default)]
struct Book {
    /// Numbers the handshakes in the order they came: the smallest is the oldest.
    next_number: u64,
    by_age: BTreeMap<u64, Entry>,
    by_peer: HashMap<IpAddr, BTreeSet<u64>>,
}

struct Entry {
    peer: IpAddr,
    /// Dropped to tell the handshake it was let go.
    _let_go: oneshot::Sender<()>,
}

impl PendingHandshakes {
    pub fn new(caps: PendingCaps) -> Arc<PendingHandshakes> {
        let caps = PendingCaps {
            per_peer: caps.per_peer.max(1),
            in_all: caps.in_all.max(1),
        };
        Arc::new(PendingHandshakes {
            caps,
            book: Mutex::new(Book::default()),
        })
    }

    /// A new handshake from `ip`, room made for it first if a cap is reached.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> PendingHandshake {
        let peer = peer_of(ip);
        let mut book = self.book();
        if book.of_peer(peer) >= self.caps.per_peer {
            book.let_go_oldest_of(peer);
        }
        if book.by_age.len() >= self.caps.in_all {
            book.let_go_oldest();
        }
        let number = book.next_number;
        book.next_number += 1;
        let (sender, let_go) = oneshot::channel();
        book.by_age.insert(
            number,
            Entry {
                peer,
                _let_go: sender,
            },
        );
        book.by_peer.entry(peer).or_default().insert(number);
        PendingHandshake {
            number,
            pending: Arc::clone(self),
            let_go,
        }
    }

    /// How many handshakes are under way, and from how many peers.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let book = self.book();
        (book.by_age.len(), book.by_peer.len())
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        // The book is whole after any step, so a panic elsewhere leaves it usable.
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl PendingHandshake {
    /// Resolves once this handshake was let go to make room for newer ones.
    pub async fn let_go(&mut self) {
        let _ = (&mut self.let_go).await;
    }

    /// Whether this handshake was let go.
    #[cfg(test)]
    fn was_let_go(&mut self) -> bool {
        self.let_go
            .try_recv()
            .is_err_and(|e| e == oneshot::error::TryRecvError::Closed)
    }
}

impl Drop for PendingHandshake {
    fn drop(&mut self) {
        // Finished, failed or let go: its place is free (already, if let go).
        self.pending.book().remove(self.number);
    }
}

impl Book {
    fn of_peer(&self, peer: IpAddr) -> usize {
        self.by_peer.get(&peer).map_or(0, BTreeSet::len)
    }

    fn let_go_oldest_of(&mut self, peer: IpAddr) {
        if let Some(&oldest) = self.by_peer.get(&peer).and_then(BTreeSet::first) {
            self.remove(oldest);
        }
    }

    fn let_go_oldest(&mut self) {
        if let Some(&oldest) = self.by_age.keys().next() {
            self.remove(oldest);
        }
    }

    /// Forgets handshake `number` (dropping its sender, which lets it go if it is still
    /// under way), and its peer once that has none left.
    fn remove(&mut self, number: u64) {
        let Some(entry) = self.by_age.remove(&number) else {
            return;
        };
        if let Some(numbers) = self.by_peer.get_mut(&entry.peer) {
            numbers.remove(&number);
            if numbers.is_empty() {
                self.by_peer.remove(&entry.peer);
            }
        }
    }
}

/// Who a connection from `ip` counts against: its IPv4 address (also when written as
/// an IPv4-mapped IPv6 one), or the /64 of an IPv6 address, as a host is usually given
/// a whole /64 and could otherwise be as many peers as it has addresses.
fn peer_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & (u128::MAX << 64))),
        v4 => v4,
    }
}

#[cfg(test)]
#[path = "pending_tests.rs"]
mod tests;
