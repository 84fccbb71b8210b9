//! A gRPC-Web client as a browser is one: HTTP/1.1, `application/grpc-web+proto`, an
//! `Origin`, the bearer token in a header, messages framed in the body and the status
//! either in the headers (trailers-only answers) or in the body's trailer frame.

// Test support: a call that cannot be made fails the test that makes it.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// A page served from here may call in development.
pub const LOCAL_PAGE: &str = "http://localhost:5173";

/// One gRPC-Web call on the wire.
pub struct WebCall {
    /// The HTTP answer's headers (CORS, trailers-only status, retry hints).
    pub headers: http::HeaderMap,
    /// The messages received so far, in order.
    pub messages: Vec<Bytes>,
    /// The gRPC status, once known.
    pub status: Option<i32>,
    /// The status message, once known.
    pub message: String,
    body: hyper::body::Incoming,
    buffer: BytesMut,
}

/// The HTTP/1.1 client the calls use.
pub fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// Starts a gRPC-Web call of `path` on `base` with `request`, as a page of `origin`
/// holding `token` would.
pub async fn call(
    base: &str,
    path: &str,
    token: Option<&str>,
    origin: &str,
    request: &impl prost::Message,
    extra_headers: &[(&str, &str)],
) -> WebCall {
    let payload = request.encode_to_vec();
    let mut framed = BytesMut::with_capacity(payload.len() + 5);
    framed.extend_from_slice(&[0]);
    framed.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(&payload);
    let mut builder = http::Request::post(format!("{base}{path}"))
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .header("origin", origin);
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    for (name, value) in extra_headers {
        builder = builder.header(*name, *value);
    }
    let response = client()
        .request(builder.body(Full::new(framed.freeze())).unwrap())
        .await
        .unwrap();
    assert_eq!(
        response.version(),
        http::Version::HTTP_11,
        "a browser's HTTP/1.1"
    );
    let (parts, body) = response.into_parts();
    let status = parts
        .headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let message = parts
        .headers
        .get("grpc-message")
        .and_then(|v| v.to_str().ok())
        .map(percent_decode)
        .unwrap_or_default();
    WebCall {
        headers: parts.headers,
        messages: Vec::new(),
        status,
        message,
        body,
        buffer: BytesMut::new(),
    }
}

impl WebCall {
    /// Reads until the next message (returned) or the end of the call (`None`).
    pub async fn next(&mut self, within: Duration) -> Option<Bytes> {
        let read = async {
            loop {
                if let Some(item) = self.take_frame() {
                    return item;
                }
                match self.body.frame().await {
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            self.buffer.extend_from_slice(&data);
                        }
                    }
                    _ => return None,
                }
            }
        };
        tokio::time::timeout(within, read)
            .await
            .expect("a gRPC-Web frame in time")
    }

    /// Reads the whole call; returns its status.
    pub async fn finish(mut self) -> Self {
        while self.next(Duration::from_secs(10)).await.is_some() {}
        self
    }

    /// One frame from the buffer: a message (`Some(Some)`), the trailers (`Some(None)`).
    fn take_frame(&mut self) -> Option<Option<Bytes>> {
        if self.buffer.len() < 5 {
            return None;
        }
        let len = u32::from_be_bytes([
            self.buffer[1],
            self.buffer[2],
            self.buffer[3],
            self.buffer[4],
        ]) as usize;
        if self.buffer.len() < 5 + len {
            return None;
        }
        let flags = self.buffer[0];
        self.buffer.advance(5);
        let frame = self.buffer.split_to(len).freeze();
        if flags & 0x80 == 0 {
            self.messages.push(frame.clone());
            return Some(Some(frame));
        }
        for line in String::from_utf8_lossy(&frame).split("\r\n") {
            if let Some((name, value)) = line.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "grpc-status" => self.status = value.trim().parse().ok(),
                    "grpc-message" => self.message = percent_decode(value.trim()),
                    _ => {}
                }
            }
        }
        Some(None)
    }

    /// A response header as text.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// A CORS preflight for a gRPC-Web call of `path`, from a page of `origin`.
pub async fn preflight(
    base: &str,
    path: &str,
    origin: &str,
) -> http::Response<hyper::body::Incoming> {
    let request = http::Request::builder()
        .method("OPTIONS")
        .uri(format!("{base}{path}"))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type,x-grpc-web,x-user-agent",
        )
        .body(Full::new(Bytes::new()))
        .unwrap();
    client().request(request).await.unwrap()
}

/// A plain HTTP request to the web client's server.
pub async fn http(method: &str, url: &str) -> (http::StatusCode, http::HeaderMap, String) {
    let request = http::Request::builder()
        .method(method)
        .uri(url)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = client().request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// `grpc-message` is percent-encoded on the wire (as the gRPC spec says).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
