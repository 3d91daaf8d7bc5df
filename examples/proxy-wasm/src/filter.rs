//! The proxy-wasm glue (wasm32 only): a root context that reads the configuration, and an HTTP
//! context per request that rewrites the response as it streams.

use std::rc::Rc;

use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel};

use crate::body::{BodyRewriter, Output};
use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::response::{HeaderEdit, Plan, plan};

proxy_wasm::main! {{
    // Also routes panics to proxy_log (the SDK's panic hook).
    proxy_wasm::set_log_level(LogLevel::Info);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root::default()) });
}}

/// Logs through `proxy_log`, prefixed with the filter's name.
fn log(level: LogLevel, message: &str) {
    // The host's status is not ours to act on: a log line that cannot be written is dropped.
    let _ = hostcalls::log(level, &format!("htrewrite: {message}"));
}

fn log_error(error: &Error) {
    log(LogLevel::Error, &error.to_string());
}

/// The plugin's root context: the configuration, parsed once per `proxy_on_configure`.
#[derive(Default)]
struct Root {
    config: Rc<Config>,
}

impl Context for Root {}

impl RootContext for Root {
    fn on_configure(&mut self, _plugin_configuration_size: usize) -> bool {
        let bytes = self.get_plugin_configuration().unwrap_or_default();
        match Config::from_bytes(&bytes) {
            Ok(config) => {
                let rules = config.rules().map_or(0, |r| r.rules().len());
                log(LogLevel::Info, &format!("configured: {rules} rules"));
                self.config = Rc::new(config);
                true
            }
            Err(error) => {
                log_error(&error);
                false
            }
        }
    }

    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Http { config: Rc::clone(&self.config), method: None, body: None }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

/// One request and its response.
struct Http {
    config: Rc<Config>,
    /// The request's `:method`.
    method: Option<String>,
    /// The response body's rewriter, while the body streams.
    body: Option<BodyRewriter>,
}

impl Context for Http {}

impl HttpContext for Http {
    fn on_http_request_headers(&mut self, _num_headers: usize, _end_of_stream: bool) -> Action {
        if self.config.rules().is_some() {
            self.method = self.get_http_request_header(":method");
        }
        Action::Continue
    }

    fn on_http_response_headers(&mut self, _num_headers: usize, end_of_stream: bool) -> Action {
        let Some(rules) = self.config.rules() else { return Action::Continue };
        let headers = self.get_http_response_headers_bytes();
        match plan(self.method.as_deref().unwrap_or("GET"), &headers) {
            Plan::Rewrite { charset, edits } => {
                // No body follows: nothing to rewrite, and the headers stay true.
                if end_of_stream {
                    return Action::Continue;
                }
                match BodyRewriter::new(rules, charset.as_deref()) {
                    Ok(body) => {
                        self.edit_headers(&edits);
                        self.body = Some(body);
                    }
                    Err(error) => log_error(&error),
                }
            }
            Plan::HeadersOnly { edits } => self.edit_headers(&edits),
            Plan::Leave(_) => {}
        }
        Action::Continue
    }

    fn on_http_response_body(&mut self, body_size: usize, end_of_stream: bool) -> Action {
        if self.body.is_none() {
            return Action::Continue;
        }
        let chunk = self.get_http_response_body(0, body_size).unwrap_or_default();
        let Some(body) = self.body.as_mut() else { return Action::Continue };
        let mut out = body.write(&chunk);
        if end_of_stream && let Some(body) = self.body.take() {
            let tail = body.end();
            out.bytes.extend(tail.bytes);
            out.error = out.error.or(tail.error);
        }
        let Output { bytes, error } = out;
        if let Some(error) = error {
            log_error(&error);
        }
        if bytes != chunk {
            self.set_http_response_body(0, chunk.len(), &bytes);
        }
        Action::Continue
    }

    fn on_http_response_trailers(&mut self, _num_trailers: usize) -> Action {
        // Responses that announce trailers are left alone (`Leave::Trailers`); these came
        // unannounced, after the last chunk the body could still be changed in.
        if let Some(body) = self.body.take() {
            let tail = body.end();
            if let Some(error) = tail.error {
                log_error(&error);
            }
            if !tail.bytes.is_empty() {
                log_error(&Error::new(
                    ErrorKind::Trailers,
                    format!("the last {} bytes of the rewritten body could not be sent", tail.bytes.len()),
                ));
            }
        }
        Action::Continue
    }
}

impl Http {
    fn edit_headers(&self, edits: &[HeaderEdit]) {
        for edit in edits {
            match edit {
                HeaderEdit::Remove(name) => self.set_http_response_header(name, None),
                HeaderEdit::Replace(name, value) => self.set_http_response_header_bytes(name, Some(value)),
            }
        }
    }
}
