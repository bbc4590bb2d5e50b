//! What the command line (or an API request) changed of a workload for one run — the
//! endpoint, the bucket index layout, the S3 client — recorded in the manifest so that
//! `keystorm run --resume` runs the rest exactly as the run began. Never secrets: those
//! stay where the workload says they come from.

use serde::{Deserialize, Serialize};

use crate::index_layout::IndexLayout;
use crate::shard::Shard;
use keystorm_types::ClientKind;

/// The workload's settings a run replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunOverrides {
    /// `--endpoint`: the URL used instead of the workload's target endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// `--index`: the bucket index layout used instead of `buckets.index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub index: Option<IndexLayout>,
    /// `--client`: the S3 client used instead of `target.client`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub client: Option<ClientKind>,
    /// `--shard I/N`: the part of the workload this run is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// `--verify`: every phase that GETs checks what it reads.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
}

/// A flag given again at resume that says something else than the run recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{flag} {given} differs from the run's {recorded}: a resumed run continues as it began \
     (leave {flag} out, or start a new run)"
)]
pub struct OverrideMismatch {
    pub flag: &'static str,
    pub given: String,
    pub recorded: String,
}

impl RunOverrides {
    pub fn is_empty(&self) -> bool {
        self == &RunOverrides::default()
    }

    /// The overrides a resumed run uses: the recorded ones. Each flag given again must
    /// say the same.
    pub fn for_resume(&self, given: &RunOverrides) -> Result<RunOverrides, OverrideMismatch> {
        fn check<T: PartialEq + std::fmt::Debug>(
            flag: &'static str,
            given: &Option<T>,
            recorded: &Option<T>,
            show: impl Fn(&T) -> String,
        ) -> Result<(), OverrideMismatch> {
            match (given, recorded) {
                (Some(g), r) if Some(g) != r.as_ref() => Err(OverrideMismatch {
                    flag,
                    given: show(g),
                    recorded: r
                        .as_ref()
                        .map_or_else(|| "workload setting".to_string(), &show),
                }),
                _ => Ok(()),
            }
        }
        // One endpoint however it is spelled: case and trailing slashes aside.
        let one_spelling = |e: &String| {
            keystorm_types::endpoint_urls(e)
                .map(|urls| urls.join(","))
                .unwrap_or_else(|_| e.trim_end_matches('/').to_string())
        };
        check(
            "--endpoint",
            &given.endpoint.as_ref().map(one_spelling),
            &self.endpoint.as_ref().map(one_spelling),
            |e| e.clone(),
        )?;
        check("--index", &given.index, &self.index, |l| match l {
            IndexLayout::Dynamic => "dynamic".to_string(),
            IndexLayout::Shards(n) => n.to_string(),
        })?;
        check("--client", &given.client, &self.client, |c| {
            format!("{c:?}").to_lowercase()
        })?;
        check("--shard", &given.shard, &self.shard, Shard::to_string)?;
        check(
            "--verify",
            &given.verify.then_some(true),
            &self.verify.then_some(true),
            |_| "--verify".to_string(),
        )?;
        Ok(self.clone())
    }

    /// The overrides of a run recorded before they had a field of their own, read back
    /// from its command line (`keystorm run W --endpoint URL ...`).
    pub fn from_command_line(args: &[String]) -> RunOverrides {
        let mut out = RunOverrides::default();
        let mut it = args.iter().skip(1);
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            let value = || inline.clone().or_else(|| it.clone().next().cloned());
            match flag {
                "--endpoint" => out.endpoint = value(),
                "--client" => {
                    out.client = value().and_then(|v| match v.as_str() {
                        "fast" => Some(ClientKind::Fast),
                        "sdk" => Some(ClientKind::Sdk),
                        _ => None,
                    })
                }
                "--shard" => out.shard = value().and_then(|v| v.parse().ok()),
                "--verify" => out.verify = true,
                "--index" => {
                    out.index = value().and_then(|v| match v.trim() {
                        "dynamic" => Some(IndexLayout::Dynamic),
                        n => n.parse().ok().map(IndexLayout::Shards),
                    })
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn an_old_command_line_gives_its_overrides_back() {
        let o = RunOverrides::from_command_line(&args(
            "keystorm run w.yaml --endpoint http://127.0.0.1:9311 --label a=b --index=211",
        ));
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9311"));
        assert_eq!(o.index, Some(IndexLayout::Shards(211)));
        assert_eq!(o.client, None);
        assert!(RunOverrides::from_command_line(&args("keystorm run w.yaml")).is_empty());
    }

    #[test]
    fn a_resume_keeps_the_recorded_overrides_and_refuses_others() {
        let recorded = RunOverrides {
            endpoint: Some("http://127.0.0.1:9311".into()),
            ..RunOverrides::default()
        };
        assert_eq!(
            recorded.for_resume(&RunOverrides::default()).unwrap(),
            recorded
        );
        let same = RunOverrides {
            endpoint: Some("http://127.0.0.1:9311/".into()),
            ..RunOverrides::default()
        };
        assert_eq!(recorded.for_resume(&same).unwrap(), recorded);
        let upper = RunOverrides {
            endpoint: Some("HTTP://127.0.0.1:9311".into()),
            ..RunOverrides::default()
        };
        assert_eq!(recorded.for_resume(&upper).unwrap(), recorded);
        let other = RunOverrides {
            endpoint: Some("http://127.0.0.1:9000".into()),
            ..RunOverrides::default()
        };
        let e = recorded.for_resume(&other).unwrap_err();
        assert_eq!(e.flag, "--endpoint");
        assert!(e.to_string().contains("http://127.0.0.1:9311"), "{e}");
        let client = RunOverrides {
            client: Some(ClientKind::Sdk),
            ..RunOverrides::default()
        };
        assert!(
            recorded
                .for_resume(&client)
                .unwrap_err()
                .to_string()
                .contains("workload setting")
        );
    }

    #[test]
    fn a_resumed_shard_stays_the_shard_it_was() {
        let recorded = RunOverrides::from_command_line(&args("keystorm run w.yaml --shard 1/4"));
        assert_eq!(recorded.shard, Some(Shard { index: 1, count: 4 }));
        assert_eq!(
            recorded.for_resume(&RunOverrides::default()).unwrap(),
            recorded
        );
        let other = RunOverrides {
            shard: Some(Shard { index: 2, count: 4 }),
            ..RunOverrides::default()
        };
        let e = recorded.for_resume(&other).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--shard 2/4 differs from the run's 1/4: a resumed run continues as it began (leave --shard out, or start a new run)"
        );
    }
}
