//! Placeholder: the fast client is being written.

use bytes::Bytes;

use super::{ClientConfig, DeleteManyOutcome, GetOutcome, HeadOutcome, ListPage, ListRequest};
use crate::ops::{ErrorClass, OpError};

fn missing() -> OpError {
    OpError::new(ErrorClass::Other, "client not available yet")
}

#[derive(Clone)]
pub struct FastClient;

impl FastClient {
    pub fn new(_config: &ClientConfig) -> Result<Self, OpError> {
        Err(missing())
    }
    pub async fn put_object(
        &self,
        _b: &str,
        _k: &str,
        _body: Bytes,
        _m: &[(String, String)],
    ) -> Result<(), OpError> {
        Err(missing())
    }
    pub async fn get_object(
        &self,
        _b: &str,
        _k: &str,
        _r: Option<(u64, u64)>,
    ) -> Result<GetOutcome, OpError> {
        Err(missing())
    }
    pub async fn get_object_bytes(&self, _b: &str, _k: &str) -> Result<Bytes, OpError> {
        Err(missing())
    }
    pub async fn head_object(&self, _b: &str, _k: &str) -> Result<HeadOutcome, OpError> {
        Err(missing())
    }
    pub async fn delete_object(&self, _b: &str, _k: &str) -> Result<(), OpError> {
        Err(missing())
    }
    pub async fn delete_objects(
        &self,
        _b: &str,
        _k: &[String],
    ) -> Result<DeleteManyOutcome, OpError> {
        Err(missing())
    }
    pub async fn list_objects_v2(&self, _b: &str, _r: &ListRequest) -> Result<ListPage, OpError> {
        Err(missing())
    }
    pub async fn create_bucket(&self, _b: &str) -> Result<bool, OpError> {
        Err(missing())
    }
    pub async fn bucket_exists(&self, _b: &str) -> Result<bool, OpError> {
        Err(missing())
    }
    pub async fn delete_bucket(&self, _b: &str) -> Result<(), OpError> {
        Err(missing())
    }
}
