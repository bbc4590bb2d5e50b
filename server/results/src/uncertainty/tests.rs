//! The bootstrap on seconds made up to known shapes.

use std::collections::BTreeMap;

use keystorm_types::OpKind;

use super::seconds::{OpSecond, Second};
use super::*;

/// A second of `ops` GETs of one byte each, every one taking `latency_us`.
fn second(ops: u64, latency_us: u64) -> Second {
    Second {
        duration_s: 1.0,
        ops: BTreeMap::from([(
            OpKind::Get,
            OpSecond {
                ops,
                errors: 0,
                bytes: ops,
                latency: vec![(latency_us, ops)],
            },
        )]),
    }
}

#[test]
fn steady_seconds_give_a_narrow_interval_around_the_rate() {
    let seconds: Vec<Second> = (0..60).map(|i| second(1000 + i % 3, 500)).collect();
    let d = draws(&[&seconds], OpKind::Get, &[], SEED).unwrap();
    let r = Estimate::of(&d, |f| f.ops_per_sec);
    assert!((r.value - 1001.0).abs() < 1e-9, "{r:?}");
    assert!(r.low <= r.value && r.value <= r.high, "{r:?}");
    assert!(r.half_width_share() < 0.001, "{r:?}");
    assert_eq!(d.seconds, 60);
}

#[test]
fn noisy_seconds_give_a_wider_interval_that_holds_the_rate() {
    let mut rng = fastrand::Rng::with_seed(3);
    let seconds: Vec<Second> = (0..60).map(|_| second(rng.u64(0..2000), 500)).collect();
    let d = draws(&[&seconds], OpKind::Get, &[], SEED).unwrap();
    let r = Estimate::of(&d, |f| f.ops_per_sec);
    assert!(r.low < r.value && r.value < r.high, "{r:?}");
    // The mean of 60 draws of U(0, 2000) has a standard error of 75: a 95 % interval
    // about ±147 wide, give or take the bootstrap's own spread.
    let half = (r.high - r.low) / 2.0;
    assert!((100.0..200.0).contains(&half), "{r:?}");
    // The same seconds, the same interval.
    let again = draws(&[&seconds], OpKind::Get, &[], SEED).unwrap();
    assert_eq!(Estimate::of(&again, |f| f.ops_per_sec), r);
}

#[test]
fn a_percentile_is_read_from_the_drawn_histograms_added_up() {
    // Half the seconds are fast (100 µs), half slow (900 µs), by turns: p50 of the
    // whole is the fast value (as many fast as slow, the 50th percentile the last
    // fast one), p99 the slow one; an average of per-second p99s would be 500.
    let seconds: Vec<Second> = (0..40)
        .map(|i| second(100, if i % 2 == 0 { 100 } else { 900 }))
        .collect();
    let d = draws(&[&seconds], OpKind::Get, &[], SEED).unwrap();
    let p99 = Estimate::of(&d, |f| f.p99_us);
    assert_eq!(p99.value, 900.0);
    assert_eq!((p99.low, p99.high), (900.0, 900.0), "{p99:?}");
    let p50 = Estimate::of(&d, |f| f.p50_us);
    assert_eq!(p50.value, 100.0);
    // Resamples hold more fast seconds or more slow ones: p50 moves between the two.
    assert_eq!((p50.low, p50.high), (100.0, 900.0), "{p50:?}");
}

#[test]
fn tail_shares_count_the_operations_at_or_over_each_mark() {
    let mut seconds: Vec<Second> = (0..20).map(|_| second(1000, 200)).collect();
    seconds[7]
        .ops
        .get_mut(&OpKind::Get)
        .unwrap()
        .latency
        .push((1_000_000, 16));
    let d = draws(&[&seconds], OpKind::Get, &[1_000_000, 10_000_000], SEED).unwrap();
    assert!((d.estimate.slow_share[0] - 16.0 / 20_016.0).abs() < 1e-12);
    assert_eq!(d.estimate.slow_share[1], 0.0);
}

#[test]
fn rounds_are_drawn_whole_when_there_are_enough_of_them() {
    // Four rounds of two seconds each: too few seconds for a round alone, enough
    // rounds for an interval over them; rounds that differ make it wide.
    let rounds: Vec<Vec<Second>> = [1000, 1100, 900, 1000]
        .iter()
        .map(|&ops| vec![second(ops, 300), second(ops, 300)])
        .collect();
    let refs: Vec<&[Second]> = rounds.iter().map(Vec::as_slice).collect();
    let d = draws(&refs, OpKind::Get, &[], SEED).unwrap();
    let r = Estimate::of(&d, |f| f.ops_per_sec);
    assert_eq!(r.value, 1000.0);
    assert!(r.low < 980.0 && r.high > 1020.0, "{r:?}");
    let e = draws(&refs[..1], OpKind::Get, &[], SEED).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2 measured seconds; an interval needs at least 10"
    );
    let e = draws(&refs[..2], OpKind::Get, &[], SEED).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2 rounds of 4 measured seconds in all; an interval needs 3 rounds or 10 seconds"
    );
}

#[test]
fn sparse_histograms_add_up_bucket_by_bucket() {
    let a = [(1, 2), (5, 1), (9, 4)];
    let b = [(5, 3), (7, 1)];
    assert_eq!(
        seconds::add_sparse(&a, &b),
        vec![(1, 2), (5, 4), (7, 1), (9, 4)]
    );
}
