//! The agent's clock against the controller's, measured from each heartbeat's round
//! trip: the controller reads its clock about half way through, so the offset is its
//! reading less the middle of the round trip. The agent's shards place their events
//! on the controller's time with it, and the controller sees it in every heartbeat.

/// The controller's clock less this agent's, in milliseconds, from a round trip sent
/// at `sent_ms` and answered at `received_ms` (this agent's clock) with the
/// controller's reading `controller_ms`.
pub fn offset_ms(sent_ms: u64, received_ms: u64, controller_ms: u64) -> i64 {
    controller_ms as i64 - ((sent_ms + received_ms) / 2) as i64
}

#[cfg(test)]
mod tests {
    use super::offset_ms;

    #[test]
    fn the_offset_is_the_controllers_reading_less_the_middle_of_the_round_trip() {
        // Controller 5 s ahead, 40 ms each way: it read 5,040 ms after the send.
        assert_eq!(offset_ms(1_000, 1_080, 6_040), 5_000);
        // Controller behind.
        assert_eq!(offset_ms(10_000, 10_020, 7_010), -3_000);
        // A round trip of nothing: the offset is the difference of the clocks.
        assert_eq!(offset_ms(500, 500, 500), 0);
    }
}
