//! A port's own faults: the target's fault injection scoped to the requests that arrive
//! on one port, as when one gateway of a cluster fails while the others serve. Only the
//! request faults (503 SlowDown, 500, a reset, a stall, a corrupted GET body): the
//! index faults are the store's, whichever gateway a request came through. A port's
//! fault is drawn after the target's own (a request gets one fault at most), from a
//! generator of the port's, and counted per port; its counts outlive a change of the
//! port's faults.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::inject::{Fault, Injector};
use crate::request::Op;
use crate::{FaultConfig, FaultCounts, LatencyConfig, ObjectOp};

/// Spreads a port's number over the bits of its fault seed.
const PORT_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Why faults cannot be a port's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PortFaultsError {
    #[error(
        "{0} fails the bucket index, which is the store's whichever port a request came \
         through: give it to the target, not to a port"
    )]
    StoreFault(&'static str),
    #[error("a port's fault rates add up to {0}; together they must not exceed 1")]
    TooMany(f64),
    #[error("a fault rate must be a fraction between 0 and 1, not {0}")]
    Rate(f64),
}

/// The faults of one port and what they injected.
#[derive(Default)]
pub(crate) struct PortFaults {
    /// Whether the port has faults: requests on a port without read this flag only.
    any: AtomicBool,
    now: Mutex<Option<(FaultConfig, Arc<Injector>)>>,
    /// What injectors replaced since had injected, per operation group (in
    /// `ObjectOp::ALL` order).
    retired: Mutex<[FaultCounts; 5]>,
}

/// Checks that `faults` can be a port's: request faults only, rates that add up to 1
/// at most.
pub fn check_port_faults(faults: &FaultConfig) -> Result<(), PortFaultsError> {
    for (name, rate) in [
        ("key_error", faults.key_error),
        ("lose_on_reshard", faults.lose_on_reshard),
        ("list_twice", faults.list_twice),
    ] {
        if rate != 0.0 {
            return Err(PortFaultsError::StoreFault(name));
        }
    }
    let rates = [
        faults.slow_down,
        faults.internal_error,
        faults.reset,
        faults.stall,
        faults.corrupt,
    ];
    if let Some(bad) = rates.iter().find(|r| !(0.0..=1.0).contains(*r)) {
        return Err(PortFaultsError::Rate(*bad));
    }
    let total: f64 = rates.iter().sum();
    if total > 1.0 + 1e-9 {
        return Err(PortFaultsError::TooMany(total));
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl PortFaults {
    /// Replaces the port's faults (`None`: none). A non-zero seed is mixed with `salt`
    /// (the port's number), so one seed gives every port draws of its own.
    pub fn set(&self, faults: Option<FaultConfig>, salt: u64) -> Result<(), PortFaultsError> {
        let faults = match faults {
            Some(f) => {
                check_port_faults(&f)?;
                let any = f.slow_down + f.internal_error + f.reset + f.stall + f.corrupt > 0.0;
                any.then_some(f)
            }
            None => None,
        };
        let injector = faults.map(|f| {
            let mut drawn = f.clone();
            if drawn.seed != 0 {
                drawn.seed = (drawn.seed ^ salt.wrapping_mul(PORT_SALT)).max(1);
            }
            (f, Arc::new(Injector::new(LatencyConfig::default(), drawn)))
        });
        let mut now = lock(&self.now);
        if let Some((_, old)) = now.take() {
            let mut retired = lock(&self.retired);
            for (sum, op) in retired.iter_mut().zip(ObjectOp::ALL) {
                *sum = *sum + old.counts_of(op);
            }
        }
        self.any.store(injector.is_some(), Ordering::Relaxed);
        *now = injector;
        Ok(())
    }

    /// The port's faults as given, if any.
    pub fn config(&self) -> Option<FaultConfig> {
        lock(&self.now).as_ref().map(|(f, _)| f.clone())
    }

    /// The port's fault for one request of `op`, if any, counted, with the injector
    /// that drew it (a stall's time and a corruption's bit are its).
    pub fn draw(&self, op: Op) -> Option<(Fault, Arc<Injector>)> {
        if !self.any.load(Ordering::Relaxed) {
            return None;
        }
        let injector = lock(&self.now).as_ref().map(|(_, i)| i.clone())?;
        injector.fault(op).map(|fault| (fault, injector))
    }

    /// What the port's faults injected into the requests of one operation group.
    pub fn counts_of(&self, op: ObjectOp) -> FaultCounts {
        let place = ObjectOp::ALL.iter().position(|o| *o == op).unwrap_or(0);
        let retired = lock(&self.retired)[place];
        match lock(&self.now).as_ref() {
            Some((_, injector)) => retired + injector.counts_of(op),
            None => retired,
        }
    }

    /// What the port's faults injected, in all.
    pub fn counts(&self) -> FaultCounts {
        ObjectOp::ALL
            .into_iter()
            .map(|op| self.counts_of(op))
            .fold(FaultCounts::default(), |a, b| a + b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resets(rate: f64) -> FaultConfig {
        FaultConfig {
            reset: rate,
            seed: 3,
            ..FaultConfig::default()
        }
    }

    #[test]
    fn counts_outlive_a_change_of_faults() {
        let f = PortFaults::default();
        assert!(f.draw(Op::GetObject).is_none());
        f.set(Some(resets(1.0)), 9001).unwrap();
        for _ in 0..3 {
            assert_eq!(f.draw(Op::GetObject).map(|(x, _)| x), Some(Fault::Reset));
        }
        assert!(f.draw(Op::CreateBucket).is_none(), "bucket calls get none");
        f.set(
            Some(FaultConfig {
                slow_down: 1.0,
                ..FaultConfig::default()
            }),
            9001,
        )
        .unwrap();
        assert_eq!(f.draw(Op::PutObject).map(|(x, _)| x), Some(Fault::SlowDown));
        f.set(None, 9001).unwrap();
        assert!(f.draw(Op::GetObject).is_none() && f.config().is_none());
        assert_eq!(f.counts_of(ObjectOp::Get).reset, 3);
        assert_eq!(f.counts_of(ObjectOp::Put).slow_down, 1);
        assert_eq!((f.counts().reset, f.counts().slow_down), (3, 1));
    }

    #[test]
    fn index_faults_and_rates_past_one_are_no_ports() {
        let f = PortFaults::default();
        let index = FaultConfig {
            list_twice: 0.1,
            ..FaultConfig::default()
        };
        assert_eq!(
            f.set(Some(index), 1),
            Err(PortFaultsError::StoreFault("list_twice"))
        );
        let many = FaultConfig {
            reset: 0.7,
            stall: 0.7,
            ..FaultConfig::default()
        };
        assert!(matches!(
            f.set(Some(many), 1),
            Err(PortFaultsError::TooMany(_))
        ));
        assert!(f.config().is_none(), "nothing set by a refusal");
    }
}
