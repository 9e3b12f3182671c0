//! A flat session: a cheap handle that sends commands with one target's `sessionId`.

use std::sync::Arc;
use std::time::Duration;

use chromiumoxide_types::Command;
use serde::Serialize;
use serde::de::DeserializeOwned;

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

    /// How many messages (calls and sends) went out on this session so far, through any
    /// handle of it: a caller can tell whether anything touched the target since it last
    /// looked (the browser-level session counts none).
    pub fn messages_sent(&self) -> u64 {
        match &self.id {
            Some(id) => self.connection.messages_sent_on(id),
            None => 0,
        }
    }

    /// Sends a typed command (a generated `…Params` from [`crate::protocol`]) and decodes its
    /// typed reply, within the connection's default deadline. The method name and every field
    /// come from the generated types, so a misspelt one does not compile.
    pub async fn call<C: Command>(&self, command: C) -> Result<C::Response, Error> {
        self.call_within(command, self.connection.default_timeout())
            .await
    }

    /// [`Session::call`] with an explicit deadline.
    pub async fn call_within<C: Command>(
        &self,
        command: C,
        timeout: Duration,
    ) -> Result<C::Response, Error> {
        self.call_as(&command, Some(timeout)).await
    }

    /// Sends a typed command and decodes the reply as `R` instead of the generated response
    /// type: for replies whose generated type is stricter than the Chrome we drive (an enum that
    /// gained values after the pinned protocol revision would fail the whole reply) or costly to
    /// build when only a few fields are read (a whole accessibility tree).
    pub async fn call_as<C: Command, R: DeserializeOwned>(
        &self,
        command: &C,
        timeout: Option<Duration>,
    ) -> Result<R, Error> {
        let method = command.identifier();
        self.call_raw(&method, command, timeout)
            .await?
            .parse(&method)
    }

    /// Queues a typed command without waiting for its reply (ordered with every other message
    /// on the connection). Used for input, acknowledgements and releases, where order matters
    /// and replies do not.
    pub async fn send<C: Command>(&self, command: &C) -> Result<(), Error> {
        self.send_json(&command.identifier(), command).await
    }

    /// Sends any method with JSON params and returns the reply as a `serde_json::Value`. Only
    /// for methods or parameters the pinned protocol types lack; prefer [`Session::call`].
    pub async fn call_json(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, Error> {
        self.call_raw(method, &params, None).await?.to_value(method)
    }

    /// [`Session::call_json`] with an explicit deadline.
    pub async fn call_json_within(
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

    /// Queues any method with serializable params without waiting for its reply. Only for
    /// methods or parameters the pinned protocol types lack; prefer [`Session::send`].
    pub async fn send_json<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<(), Error> {
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
