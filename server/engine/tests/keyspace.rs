//! The keyspace is a pure function of the workload: same inputs, same keys, sizes,
//! bodies and metadata; keys unique; leading characters uniform.

use std::collections::HashSet;

use keystorm_engine::keyspace::{Keyspace, render};
use keystorm_workload::plan::{
    Content, KeyLayout, KeyspacePlan, MetaPart, MetaTemplate, ObjectsPlan, SizeDist,
};

fn keyspace_plan(layout: KeyLayout, key_length: usize) -> KeyspacePlan {
    KeyspacePlan {
        seed: 42,
        prefix: "p/".to_string(),
        layout,
        key_length,
        existing: 0,
        shard: Default::default(),
    }
}

fn objects(size: SizeDist) -> ObjectsPlan {
    ObjectsPlan {
        size,
        content: Content::Random,
        metadata: vec![(
            "team".to_string(),
            MetaTemplate {
                source: "team-{i%8}".to_string(),
                parts: vec![
                    MetaPart::Literal("team-".to_string()),
                    MetaPart::IndexMod(8),
                ],
            },
        )],
    }
}

#[test]
fn keys_are_deterministic_and_unique() {
    let a = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 6 }),
        1,
    );
    let b = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 6 }),
        1,
    );
    let mut seen = HashSet::new();
    for i in 0..200_000u64 {
        let k = a.key(i);
        assert_eq!(k, b.key(i));
        assert!(k.starts_with("p/"));
        assert_eq!(k.len(), 2 + 16);
        assert!(k[2..].bytes().all(|c| c.is_ascii_alphanumeric()), "{k}");
        assert!(seen.insert(k), "duplicate key at {i}");
    }
}

#[test]
fn a_different_seed_gives_different_keys() {
    let a = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 6 }),
        1,
    );
    let mut plan = keyspace_plan(KeyLayout::Random, 16);
    plan.seed = 43;
    let b = Keyspace::new(&plan, &objects(SizeDist::Fixed { bytes: 6 }), 1);
    let same = (0..1000).filter(|&i| a.key(i) == b.key(i)).count();
    assert_eq!(same, 0);
}

#[test]
fn leading_characters_are_uniform_over_base62() {
    let ks = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 6 }),
        1,
    );
    let n = 620_000u64;
    let mut counts = [0u64; 128];
    for i in 0..n {
        let k = ks.key(i);
        counts[k.as_bytes()[2] as usize] += 1;
    }
    let used: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
    assert_eq!(used.len(), 62, "every base-62 character leads some key");
    let expected = n / 62;
    for c in used {
        let dev = (c as f64 - expected as f64).abs() / expected as f64;
        assert!(dev < 0.05, "leading char count {c} vs {expected}");
    }
}

#[test]
fn sequential_and_tree_layouts() {
    let seq = Keyspace::new(
        &keyspace_plan(KeyLayout::Sequential, 8),
        &objects(SizeDist::Fixed { bytes: 1 }),
        1,
    );
    assert_eq!(seq.key(0), "p/00000000");
    assert_eq!(seq.key(1234), "p/00001234");
    let tree = Keyspace::new(
        &keyspace_plan(
            KeyLayout::Tree {
                fanout: 16,
                depth: 3,
            },
            12,
        ),
        &objects(SizeDist::Fixed { bytes: 1 }),
        1,
    );
    let mut folders = HashSet::new();
    let mut names = HashSet::new();
    for i in 0..100_000 {
        let k = tree.key(i);
        let parts: Vec<&str> = k.split('/').collect();
        assert_eq!(parts.len(), 5, "{k}");
        for folder in &parts[1..4] {
            let n: u32 = folder.parse().unwrap();
            assert!(n < 16 && folder.len() == 2, "{k}");
        }
        folders.insert(parts[1..4].join("/"));
        assert!(names.insert(k));
    }
    assert_eq!(folders.len(), 16 * 16 * 16, "keys spread over every folder");
}

#[test]
fn sizes_follow_the_distribution() {
    let uni = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Uniform {
            min: 1024,
            max: 4096,
        }),
        1,
    );
    let (mut lo, mut hi) = (u64::MAX, 0);
    for i in 0..50_000 {
        let s = uni.size(i);
        assert!((1024..=4096).contains(&s));
        lo = lo.min(s);
        hi = hi.max(s);
        assert_eq!(uni.body(i).len(), s);
    }
    assert!(lo < 1100 && hi > 4000);

    let weighted = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Weighted {
            choices: vec![(4096, 70), (1 << 20, 30)],
        }),
        1,
    );
    let big = (0..20_000).filter(|&i| weighted.size(i) == 1 << 20).count();
    let share = big as f64 / 20_000.0;
    assert!((share - 0.30).abs() < 0.02, "share {share}");
}

#[test]
fn bodies_past_the_content_buffer_repeat_it_and_smaller_ones_are_one_slice() {
    let cap = keystorm_engine::keyspace::POOL_CAP;
    let span = keystorm_engine::keyspace::OFFSET_SPAN;
    let big = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 3 * cap }),
        3,
    );
    let body = big.body(7).to_bytes();
    assert_eq!(body.len() as u64, 3 * cap);
    // The buffer holds `cap + span` bytes: the body goes on from its beginning.
    let period = (cap + span) as usize;
    assert_eq!(body[..period], body[period..2 * period]);
    assert_ne!(
        body[..span as usize],
        body[1..1 + span as usize],
        "random content"
    );
    let small = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: cap }),
        3,
    );
    for i in 0..50 {
        assert_eq!(small.body(i).chunks().count(), 1, "object {i} in one slice");
    }
}

#[test]
fn bodies_and_metadata_are_functions_of_the_index() {
    let a = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 512 }),
        3,
    );
    let b = Keyspace::new(
        &keyspace_plan(KeyLayout::Random, 16),
        &objects(SizeDist::Fixed { bytes: 512 }),
        3,
    );
    assert_eq!(a.body(17), b.body(17));
    assert_ne!(a.body(17), a.body(18), "objects differ in content");
    assert_eq!(
        a.metadata(13),
        vec![("team".to_string(), "team-5".to_string())]
    );
    assert_eq!(a.bucket_index(13), 1);
    let t = MetaTemplate {
        source: "{i}/{i/10}/{seed}".to_string(),
        parts: vec![
            MetaPart::Index,
            MetaPart::Literal("/".to_string()),
            MetaPart::IndexDiv(10),
            MetaPart::Literal("/".to_string()),
            MetaPart::Seed,
        ],
    };
    assert_eq!(render(&t, 9, 123), "123/12/9");
}
