//! Cleanup's progress and outcome: the `cleanup` run event, and the manifest's record
//! of what cleanup deleted.

/// How far cleanup got: sent every second while it deletes, and once at the end.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CleanupEvent {
    /// Live objects of the keyspace window when cleanup began.
    pub objects: u64,
    pub deleted: u64,
    /// Objects that could not be deleted (they stay on the target).
    pub failed: u64,
    /// Delete requests sent: DeleteObjects batches, or single DELETEs on a target
    /// without multi-object delete.
    pub requests: u64,
    /// Whether the target refused DeleteObjects, so objects went one by one.
    pub single_deletes: bool,
    /// Buckets this run created that were deleted (in the final event).
    pub buckets_deleted: u64,
    pub seconds: f64,
    /// The final event of the cleanup.
    pub done: bool,
}

impl CleanupEvent {
    /// `deleted 2000 of 5000 objects in 2 requests, 1.2 s` (failures, single deletes
    /// and deleted buckets said when there are any).
    pub fn describe(&self) -> String {
        let mut line = format!(
            "deleted {} of {} objects in {} request{}",
            self.deleted,
            self.objects,
            self.requests,
            if self.requests == 1 { "" } else { "s" }
        );
        if self.single_deletes {
            line.push_str(" one by one (the target has no multi-object delete)");
        }
        if self.failed > 0 {
            line.push_str(&format!(", {} could not be deleted", self.failed));
        }
        if self.done && self.buckets_deleted > 0 {
            let s = if self.buckets_deleted == 1 { "" } else { "s" };
            line.push_str(&format!(", {} bucket{s} deleted", self.buckets_deleted));
        }
        line.push_str(&format!(", {:.1} s", self.seconds));
        line
    }
}
