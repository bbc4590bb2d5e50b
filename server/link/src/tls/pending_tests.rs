//! The book of handshakes under way on its own: which one a cap reached lets go, who
//! counts as one peer, and that nothing stays once the handshakes are over.

use std::net::IpAddr;

use super::*;

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

fn caps(per_peer: usize, in_all: usize) -> PendingCaps {
    PendingCaps { per_peer, in_all }
}

#[test]
fn a_peer_at_its_cap_makes_room_by_letting_its_own_oldest_go() {
    let pending = PendingHandshakes::new(caps(2, 10));
    let mut other = pending.admit(ip("10.0.0.9"));
    let mut first = pending.admit(ip("10.0.0.1"));
    let mut second = pending.admit(ip("10.0.0.1"));
    let mut third = pending.admit(ip("10.0.0.1"));
    assert!(first.was_let_go());
    assert!(!second.was_let_go());
    assert!(!third.was_let_go());
    assert!(!other.was_let_go(), "older, but another peer's");
    assert_eq!(pending.counts(), (3, 2));
}

#[test]
fn the_overall_cap_lets_the_oldest_of_any_peer_go() {
    let pending = PendingHandshakes::new(caps(2, 3));
    let mut oldest = pending.admit(ip("10.0.0.1"));
    let mut held: Vec<PendingHandshake> = ["10.0.0.2", "10.0.0.3", "10.0.0.4"]
        .into_iter()
        .map(|peer| pending.admit(ip(peer)))
        .collect();
    assert!(oldest.was_let_go());
    assert!(held.iter_mut().all(|h| !h.was_let_go()));
    assert_eq!(pending.counts(), (3, 3));
}

#[test]
fn a_finished_handshake_frees_its_place_so_nobody_is_let_go() {
    let pending = PendingHandshakes::new(caps(2, 10));
    let mut first = pending.admit(ip("10.0.0.1"));
    drop(pending.admit(ip("10.0.0.1")));
    let mut third = pending.admit(ip("10.0.0.1"));
    assert!(!first.was_let_go());
    assert!(!third.was_let_go());
}

#[test]
fn an_ipv6_slash_64_is_one_peer_and_a_mapped_ipv4_address_is_the_ipv4_one() {
    let pending = PendingHandshakes::new(caps(1, 10));
    let mut v6 = pending.admit(ip("2001:db8:1:2::1"));
    let _same_64 = pending.admit(ip("2001:db8:1:2:ffff::7"));
    assert!(v6.was_let_go());
    let mut v4 = pending.admit(ip("192.0.2.1"));
    let _mapped = pending.admit(ip("::ffff:192.0.2.1"));
    assert!(v4.was_let_go());
    let mut other_64 = pending.admit(ip("2001:db8:1:3::1"));
    assert!(!other_64.was_let_go());
    assert_eq!(pending.counts(), (3, 3));
}

#[test]
fn nothing_stays_once_the_handshakes_are_over() {
    let pending = PendingHandshakes::new(caps(4, 16));
    for round in 0..100u32 {
        let held: Vec<PendingHandshake> = (0..40u32)
            .map(|i| pending.admit(IpAddr::from([10, 0, (round % 7) as u8, (i % 9) as u8])))
            .collect();
        assert!(pending.counts().0 <= 16);
        drop(held);
        assert_eq!(pending.counts(), (0, 0));
    }
}
