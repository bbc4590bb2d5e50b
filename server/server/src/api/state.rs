//! What every handler of the API shares: how the server was started, the run it
//! drives, and the live metrics.

use std::path::PathBuf;
use std::sync::Arc;

use super::active::Active;
use super::allowed_hosts::AllowedHosts;
use super::heatmap_cache::HeatmapCache;
use super::prometheus::LiveMetrics;
use crate::fleet::{Fleet, PartCaps};

/// How the server was started.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub workloads_dir: PathBuf,
    pub results_dir: PathBuf,
    /// Required on every API call when set (always set off loopback).
    pub token: Option<String>,
    /// Opens the reads, and nothing else, when set beside `token`.
    pub read_token: Option<String>,
    /// Dev mode: proxy the UI to this Vite dev server.
    pub ui_dev_url: Option<String>,
    /// Endpoint for runs started without one (e.g. the S3 store beside keystorm in
    /// docker compose); `None` keeps each workload's own target.
    pub default_endpoint: Option<String>,
    /// How much of a run's shard folders the controller keeps of its agents.
    pub part_caps: PartCaps,
    /// The `Host` names the server answers to.
    pub hosts: AllowedHosts,
}

impl ServeConfig {
    /// A server on loopback without a token, serving these folders.
    pub fn new(workloads_dir: PathBuf, results_dir: PathBuf) -> ServeConfig {
        ServeConfig {
            workloads_dir,
            results_dir,
            token: None,
            read_token: None,
            ui_dev_url: None,
            default_endpoint: None,
            part_caps: PartCaps::default(),
            hosts: AllowedHosts {
                loopback_bound: true,
                ..AllowedHosts::default()
            },
        }
    }
}

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<ServeConfig>,
    pub active: Arc<Active>,
    pub metrics: Arc<LiveMetrics>,
    /// The agents that dialled in and the run split over them.
    pub fleet: Arc<Fleet>,
    /// Heatmaps answered lately, built on as their runs' logs grow.
    pub heatmaps: Arc<HeatmapCache>,
}

impl AppState {
    pub fn new(config: ServeConfig) -> AppState {
        AppState {
            fleet: Fleet::with_caps(config.results_dir.clone(), config.part_caps),
            config: Arc::new(config),
            active: Arc::new(Active::default()),
            metrics: Arc::new(LiveMetrics::default()),
            heatmaps: Arc::new(HeatmapCache::default()),
        }
    }
}
