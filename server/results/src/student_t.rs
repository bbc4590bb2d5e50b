//! Student's t quantile for a 95 % two-sided interval (t at 0.975), which the
//! prediction interval of a fitted line needs: exact to four decimals from a table for
//! up to 30 degrees of freedom, and from the Cornish-Fisher expansion around the normal
//! quantile beyond (within 1e-4 there), so no statistics crate is pulled in for one
//! number.

/// t(0.975) for 1 to 30 degrees of freedom.
const T975: [f64; 30] = [
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
    2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687,
    2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];

/// The standard normal's 0.975 quantile.
const Z975: f64 = 1.959_963_984_540_054;

/// t(0.975) with `dof` degrees of freedom; `None` with none.
pub fn t975(dof: usize) -> Option<f64> {
    match dof {
        0 => None,
        1..=30 => Some(T975[dof - 1]),
        _ => {
            let (z, v) = (Z975, dof as f64);
            let z3 = z.powi(3);
            let z5 = z.powi(5);
            let z7 = z.powi(7);
            Some(
                z + (z3 + z) / (4.0 * v)
                    + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
                    + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v.powi(3)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_the_expansion_give_published_values() {
        assert_eq!(t975(0), None);
        assert_eq!(t975(1), Some(12.7062));
        assert_eq!(t975(8), Some(2.3060));
        // Beyond the table: published t(0.975) for 40, 60 and 120 degrees of freedom.
        for (dof, t) in [(40, 2.0211), (60, 2.0003), (120, 1.9799)] {
            let got = t975(dof).unwrap();
            assert!((got - t).abs() < 1e-4, "{dof}: {got}");
        }
        // It joins the table without a step, and falls towards the normal quantile.
        assert!((t975(31).unwrap() - 2.0395).abs() < 1e-4);
        assert!((t975(100_000).unwrap() - Z975).abs() < 1e-4);
    }
}
