//! A flat session: a cheap handle that sends commands with one target's `sessionId`.

use std::sync::Arc;
use std::time::Duration;

use chromiumoxide_types::Command;
use serde::Serialize;

use crate::Error;
use crate::connection::{Connection, EventFilter, Subscription};
use crate::event::RawJson;

/// A CDP session: the browser session (no id) or one target's flat session.
///
/// Every call has a deadline: the connection's default, or the one passed to a `*_within`
/// method. Cloning is cheap; all clones share the connection.
#[derive(Clone)]
pub struct Session {
    connection: Connection,
    id: Option<Arc<str>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish()
    }
}

impl Session {
    pub(crate) fn new(connection: Connection, id: Option<Arc<str>>) -> Self {
        Self { connection, id }
    }

    /// The flat session id; `None` for the browser session.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The connection this session speaks over.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Sends a typed command (a chromiumoxide_cdp `…Params`) and decodes its typed reply.
    pub async fn execute<C: Command>(&self, command: C) -> Result<C::Response, Error> {
        self.execute_within(command, self.connection.default_timeout())
            .await
    }

    /// [`Session::execute`] with an explicit deadline.
    pub async fn execute_within<C: Command>(
        &self,
        command: C,
        timeout: Duration,
    ) -> Result<C::Response, Error> {
        let method = command.identifier();
        let reply = self.call_raw(&method, &command, Some(timeout)).await?;
        reply.parse(&method)
    }

    /// Sends any method with JSON params and returns the reply as a `serde_json::Value`.
    pub async fn call(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, Error> {
        self.call_raw(method, &params, None).await?.to_value(method)
    }

    /// [`Session::call`] with an explicit deadline.
    pub async fn call_within(
        &self,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, Error> {
        self.call_raw(method, &params, Some(timeout))
            .await?
            .to_value(method)
    }

    /// Sends any method with serializable params and returns the raw reply text without
    /// parsing it (large replies such as screenshots stay one shared buffer).
    pub async fn call_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        timeout: Option<Duration>,
    ) -> Result<RawJson, Error> {
        let params = serde_json::to_string(params).map_err(|e| Error::Decode {
            method: method.to_string(),
            detail: e.to_string(),
        })?;
        let timeout = timeout.unwrap_or_else(|| self.connection.default_timeout());
        self.connection
            .call_json(self.id.as_ref(), method, &params, timeout)
            .await
    }

    /// Queues a method without waiting for its reply (ordered with every other message on the
    /// connection). Used for input, where order matters and replies do not.
    pub async fn send<P: Serialize + ?Sized>(&self, method: &str, params: &P) -> Result<(), Error> {
        let params = serde_json::to_string(params).map_err(|e| Error::Decode {
            method: method.to_string(),
            detail: e.to_string(),
        })?;
        self.connection
            .send_json(self.id.as_ref(), method, &params)
            .await
    }

    /// Subscribes to this session's events that pass `filter`, on a channel of `capacity`.
    pub fn subscribe(&self, filter: EventFilter, capacity: usize) -> Subscription {
        self.connection
            .subscribe(self.id.as_deref(), filter, capacity)
    }
}
