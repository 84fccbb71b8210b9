//! TLS on every listener and on every call between services (rustls with the `ring`
//! provider). How to run with it: `docs/tls.md`.
//!
//! - [`TlsConfig`]: the settings, read once at start (`GAMEHUB_TLS_*`), and the
//!   production rule ([`TlsConfig::check_listener`]): `GAMEHUB_ENV=production` refuses
//!   a plaintext listener unless `GAMEHUB_TLS_TERMINATED_BY_PROXY=true` says a proxy in
//!   front terminates TLS.
//! - [`ServerTls`]: what a listener serves: the certificate chain and key from PEM
//!   files, **re-read when the files change** (checked at most every
//!   [`RELOAD_CHECK_INTERVAL`], on a handshake; a file that does not load keeps the
//!   certificate in force and logs a warning), ALPN `h2` and `http/1.1` (gRPC-Web from
//!   browsers), and client certificates required when `GAMEHUB_TLS_CLIENT_CA` is set
//!   (mTLS: a client without one is refused at the handshake).
//!   [`ServerTls::incoming`] turns a bound listener into a stream of finished
//!   handshakes for `serve_with_incoming_shutdown`: handshakes run concurrently, each
//!   bounded by [`HANDSHAKE_TIMEOUT`], at most [`MAX_PENDING_HANDSHAKES`] at once, and a
//!   failed one only drops its own connection.
//! - [`ClientTlsFiles`]: how calls to `https://` URLs verify the server (a CA file, or
//!   the public web roots) and which client certificate they present;
//!   [`ClientTlsFiles::process`] is the one the process's channels use.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use futures::Stream;
use futures::stream::{FuturesUnordered, StreamExt};
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::config::env::{ConfigError, Env, Environment};

/// How often, at most, a listener looks at its certificate files' modification times.
pub const RELOAD_CHECK_INTERVAL: Duration = Duration::from_secs(2);

/// A client that has not finished its TLS handshake by then is disconnected.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes in progress at once on one listener; further connections wait in the
/// kernel's accept queue until one finishes.
pub const MAX_PENDING_HANDSHAKES: usize = 512;

/// The protocols a gRPC listener offers: HTTP/2, and HTTP/1.1 for gRPC-Web from
/// browsers that do not negotiate HTTP/2.
pub const GRPC_ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// The largest certificate, key or CA file read (bytes): PEM chains are a few KB.
const MAX_PEM_FILE_BYTES: u64 = 1024 * 1024;

/// Where a listener's certificate and key are (`GAMEHUB_TLS_CERT`, `GAMEHUB_TLS_KEY`),
/// and whose client certificates it requires (`GAMEHUB_TLS_CLIENT_CA`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTlsFiles {
    /// The certificate chain (PEM), leaf first.
    pub cert: PathBuf,
    /// The private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// When set, clients must present a certificate issued by this CA (PEM) — mTLS.
    pub client_ca: Option<PathBuf>,
}

/// How calls to `https://` URLs are made: `GAMEHUB_TLS_CA` (the CA that issued the
/// servers' certificates; unset, the public web roots) and `GAMEHUB_TLS_CLIENT_CERT` /
/// `GAMEHUB_TLS_CLIENT_KEY` (the certificate this process presents, for servers that
/// require one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientTlsFiles {
    /// The CA (PEM) that servers' certificates must chain to.
    pub ca: Option<PathBuf>,
    /// The client certificate chain and key (PEM) to present.
    pub identity: Option<(PathBuf, PathBuf)>,
}

/// Every TLS setting of a process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// What the listeners serve; `None`: plaintext.
    pub server: Option<ServerTlsFiles>,
    /// How calls to other services are made.
    pub client: ClientTlsFiles,
    /// `GAMEHUB_TLS_TERMINATED_BY_PROXY`: a proxy in front terminates TLS, so a
    /// production listener may speak plaintext behind it.
    pub terminated_by_proxy: bool,
}

/// Two variables that are set together or not at all.
fn pair(env: &Env, first: &str, second: &str) -> Result<Option<(PathBuf, PathBuf)>, ConfigError> {
    match (env.raw(first), env.raw(second)) {
        (Some(a), Some(b)) => Ok(Some((PathBuf::from(a), PathBuf::from(b)))),
        (None, None) => Ok(None),
        (Some(value), None) => Err(ConfigError {
            name: second.to_owned(),
            value: String::new(),
            reason: format!("{first}={value} is set: set {second} too (or neither)"),
        }),
        (None, Some(value)) => Err(ConfigError {
            name: first.to_owned(),
            value: String::new(),
            reason: format!("{second}={value} is set: set {first} too (or neither)"),
        }),
    }
}

impl TlsConfig {
    /// Reads `GAMEHUB_TLS_CERT`, `GAMEHUB_TLS_KEY`, `GAMEHUB_TLS_CLIENT_CA`,
    /// `GAMEHUB_TLS_CA`, `GAMEHUB_TLS_CLIENT_CERT`, `GAMEHUB_TLS_CLIENT_KEY` and
    /// `GAMEHUB_TLS_TERMINATED_BY_PROXY`. The files are read when a listener starts or
    /// a channel is made, not here.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let client_ca = env.raw("GAMEHUB_TLS_CLIENT_CA").map(PathBuf::from);
        let server = match pair(env, "GAMEHUB_TLS_CERT", "GAMEHUB_TLS_KEY")? {
            Some((cert, key)) => Some(ServerTlsFiles {
                cert,
                key,
                client_ca,
            }),
            None if client_ca.is_some() => {
                return Err(ConfigError {
                    name: "GAMEHUB_TLS_CLIENT_CA".into(),
                    value: env.string("GAMEHUB_TLS_CLIENT_CA", ""),
                    reason: "client certificates are checked only on a TLS listener: set \
                             GAMEHUB_TLS_CERT and GAMEHUB_TLS_KEY too"
                        .into(),
                });
            }
            None => None,
        };
        Ok(Self {
            server,
            client: ClientTlsFiles {
                ca: env.raw("GAMEHUB_TLS_CA").map(PathBuf::from),
                identity: pair(env, "GAMEHUB_TLS_CLIENT_CERT", "GAMEHUB_TLS_CLIENT_KEY")?,
            },
            terminated_by_proxy: env.flag("GAMEHUB_TLS_TERMINATED_BY_PROXY", false)?,
        })
    }

    /// The production rule, checked before a listener starts: in `production`, a
    /// listener without TLS is refused unless `GAMEHUB_TLS_TERMINATED_BY_PROXY=true`.
    pub fn check_listener(&self, environment: Environment) -> Result<(), ConfigError> {
        if environment == Environment::Production
            && self.server.is_none()
            && !self.terminated_by_proxy
        {
            return Err(ConfigError {
                name: "GAMEHUB_TLS_CERT".into(),
                value: String::new(),
                reason: "GAMEHUB_ENV=production refuses a plaintext listener: set \
                         GAMEHUB_TLS_CERT and GAMEHUB_TLS_KEY (PEM files, see docs/tls.md), \
                         or GAMEHUB_TLS_TERMINATED_BY_PROXY=true if a proxy in front \
                         terminates TLS"
                    .into(),
            });
        }
        Ok(())
    }
}

/// The crypto every TLS config here uses: *ring*, the provider tonic's client TLS
/// (`tls-ring`) uses too, so one crypto library is in the build. rustls 0.23.48
/// deprecates it for lacking post-quantum key exchange; moving to aws-lc-rs (which
/// has it) is a build-dependency change (a C toolchain and cmake), tracked in
/// docs/tls.md.
#[allow(deprecated)]
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Reads a PEM file of at most [`MAX_PEM_FILE_BYTES`].
fn read_pem(path: &Path, what: &str) -> anyhow::Result<Vec<u8>> {
    let size = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("{what} {}: {e}", path.display()))?
        .len();
    if size > MAX_PEM_FILE_BYTES {
        anyhow::bail!(
            "{what} {}: {size} bytes, more than the {MAX_PEM_FILE_BYTES} a PEM file may have",
            path.display()
        );
    }
    std::fs::read(path).map_err(|e| anyhow::anyhow!("{what} {}: {e}", path.display()))
}

/// The certificates of a PEM file (at least one).
fn read_certs(path: &Path, what: &str) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let pem = read_pem(path, what)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("{what} {}: not PEM certificates: {e}", path.display()))?;
    if certs.is_empty() {
        anyhow::bail!(
            "{what} {}: no CERTIFICATE block in the file",
            path.display()
        );
    }
    Ok(certs)
}

/// The certificate chain and key of a listener, checked to belong together.
fn load_certified_key(cert: &Path, key: &Path) -> anyhow::Result<Arc<CertifiedKey>> {
    let chain = read_certs(cert, "certificate chain (GAMEHUB_TLS_CERT)")?;
    let key_pem = read_pem(key, "private key (GAMEHUB_TLS_KEY)")?;
    let key_der = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        anyhow::anyhow!(
            "private key (GAMEHUB_TLS_KEY) {}: no PEM private key (PKCS#8, PKCS#1 or SEC1): {e}",
            key.display()
        )
    })?;
    let certified = CertifiedKey::from_der(chain, key_der, &provider()).map_err(|e| {
        anyhow::anyhow!(
            "certificate {} and key {} do not make a usable pair: {e}",
            cert.display(),
            key.display()
        )
    })?;
    Ok(Arc::new(certified))
}

/// What identifies a version of a file: its modification time and length.
type FileStamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> FileStamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// A listener's certificate, re-read from its files when they change.
#[derive(Debug)]
struct ReloadingCert {
    cert: PathBuf,
    key: PathBuf,
    /// At most one look at the files per this interval, so a handshake costs no
    /// `stat` calls most of the time.
    check_every: Duration,
    state: Mutex<CertState>,
}

#[derive(Debug)]
struct CertState {
    checked_at: Instant,
    /// The files' stamps when last read (good or bad), so a bad file warns once.
    stamps: (FileStamp, FileStamp),
    current: Arc<CertifiedKey>,
}

impl ReloadingCert {
    fn load(cert: &Path, key: &Path, check_every: Duration) -> anyhow::Result<Self> {
        let stamps = (stamp(cert), stamp(key));
        let current = load_certified_key(cert, key)?;
        Ok(Self {
            cert: cert.to_owned(),
            key: key.to_owned(),
            check_every,
            state: Mutex::new(CertState {
                checked_at: Instant::now(),
                stamps,
                current,
            }),
        })
    }

    /// The certificate in force, re-read first if the files changed.
    fn current(&self) -> Arc<CertifiedKey> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.checked_at.elapsed() >= self.check_every {
            state.checked_at = Instant::now();
            let stamps = (stamp(&self.cert), stamp(&self.key));
            if stamps != state.stamps {
                state.stamps = stamps;
                match load_certified_key(&self.cert, &self.key) {
                    Ok(new) => {
                        tracing::info!(cert = %self.cert.display(), "tls certificate reloaded");
                        state.current = new;
                    }
                    Err(e) => tracing::warn!(
                        cert = %self.cert.display(),
                        error = %e,
                        "tls certificate files changed but do not load; still serving the previous certificate"
                    ),
                }
            }
        }
        Arc::clone(&state.current)
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// What a TLS listener serves (see the module header).
#[derive(Clone)]
pub struct ServerTls {
    config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerTls")
    }
}

impl ServerTls {
    /// Loads `files` for a gRPC listener (ALPN `h2`, `http/1.1`), re-reading the
    /// certificate when its files change.
    pub fn load(files: &ServerTlsFiles) -> anyhow::Result<Self> {
        Self::load_with(files, RELOAD_CHECK_INTERVAL, &GRPC_ALPN)
    }

    /// [`ServerTls::load`] with another reload interval (tests) and ALPN protocols.
    pub fn load_with(
        files: &ServerTlsFiles,
        check_every: Duration,
        alpn: &[&[u8]],
    ) -> anyhow::Result<Self> {
        let resolver = Arc::new(ReloadingCert::load(&files.cert, &files.key, check_every)?);
        let builder = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| anyhow::anyhow!("tls: {e}"))?;
        let builder = match &files.client_ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = rustls::RootCertStore::empty();
                for cert in read_certs(ca, "client CA (GAMEHUB_TLS_CLIENT_CA)")? {
                    roots.add(cert).map_err(|e| {
                        anyhow::anyhow!("client CA (GAMEHUB_TLS_CLIENT_CA) {}: {e}", ca.display())
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| {
                            anyhow::anyhow!(
                                "client CA (GAMEHUB_TLS_CLIENT_CA) {}: {e}",
                                ca.display()
                            )
                        })?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_cert_resolver(resolver);
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(Self {
            config: Arc::new(config),
        })
    }

    /// The same certificate (reloads included) offering other ALPN protocols, e.g. only
    /// `http/1.1` for a server that speaks nothing else.
    pub fn with_alpn(&self, alpn: &[&[u8]]) -> Self {
        let mut config = (*self.config).clone();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Self {
            config: Arc::new(config),
        }
    }

    /// An acceptor for one connection at a time (servers with their own accept loop).
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(&self.config))
    }

    /// The connections of `listener` that completed a TLS handshake, for tonic's
    /// `serve_with_incoming_shutdown`. Accepted sockets get `TCP_NODELAY`; handshakes
    /// run concurrently (at most [`MAX_PENDING_HANDSHAKES`], each within
    /// [`HANDSHAKE_TIMEOUT`]); one that fails is logged at debug level and dropped.
    /// The listener closes when the stream is dropped.
    pub fn incoming(
        &self,
        listener: TcpListener,
    ) -> impl Stream<Item = Result<TlsStream<TcpStream>, std::io::Error>> + Send + 'static {
        incoming(listener, self.acceptor(), HANDSHAKE_TIMEOUT)
    }
}

type Handshake = Pin<
    Box<dyn Future<Output = (std::net::SocketAddr, Result<TlsStream<TcpStream>, String>)> + Send>,
>;

fn incoming(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    timeout: Duration,
) -> impl Stream<Item = Result<TlsStream<TcpStream>, std::io::Error>> + Send + 'static {
    async_stream::stream! {
        let mut handshakes: FuturesUnordered<Handshake> = FuturesUnordered::new();
        loop {
            tokio::select! {
                accepted = listener.accept(), if handshakes.len() < MAX_PENDING_HANDSHAKES => {
                    match accepted {
                        Ok((tcp, peer)) => {
                            // Small replies must not wait out Nagle against a delayed ACK.
                            if let Err(e) = tcp.set_nodelay(true) {
                                tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
                            }
                            let acceptor = acceptor.clone();
                            handshakes.push(Box::pin(async move {
                                let result = match tokio::time::timeout(timeout, acceptor.accept(tcp)).await {
                                    Ok(Ok(tls)) => Ok(tls),
                                    Ok(Err(e)) => Err(e.to_string()),
                                    Err(_) => Err(format!("no handshake within {timeout:?}")),
                                };
                                (peer, result)
                            }));
                        }
                        // Out of file descriptors and the like: the error goes to the
                        // server (which logs and goes on); pause so it is not a busy loop.
                        Err(e) => {
                            yield Err(e);
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                }
                Some((peer, result)) = handshakes.next(), if !handshakes.is_empty() => {
                    match result {
                        Ok(tls) => yield Ok(tls),
                        Err(e) => tracing::debug!(%peer, error = %e, "tls handshake failed"),
                    }
                }
            }
        }
    }
}

impl ClientTlsFiles {
    /// Reads the CA and client certificate files into tonic's client TLS settings.
    pub fn tonic_config(&self) -> anyhow::Result<tonic::transport::ClientTlsConfig> {
        use tonic::transport::{Certificate, ClientTlsConfig, Identity};
        let mut config = ClientTlsConfig::new();
        config = match &self.ca {
            Some(ca) => {
                // Checked here so a wrong file is named now, not as a handshake failure.
                read_certs(ca, "CA (GAMEHUB_TLS_CA)")?;
                config.ca_certificate(Certificate::from_pem(read_pem(ca, "CA (GAMEHUB_TLS_CA)")?))
            }
            None => config.with_webpki_roots(),
        };
        if let Some((cert, key)) = &self.identity {
            let cert_pem = read_pem(cert, "client certificate (GAMEHUB_TLS_CLIENT_CERT)")?;
            let key_pem = read_pem(key, "client key (GAMEHUB_TLS_CLIENT_KEY)")?;
            config = config.identity(Identity::from_pem(cert_pem, key_pem));
        }
        Ok(config)
    }

    /// The client settings of this process: those given to
    /// [`ClientTlsFiles::install_process`], else read from the process environment
    /// on first use.
    pub fn process() -> &'static ClientTlsFiles {
        PROCESS_CLIENT.get_or_init(|| match TlsConfig::from_env(&Env::process()) {
            Ok(config) => config.client,
            Err(e) => {
                // The same variables fail the service's configuration at start; a tool
                // that reads no configuration gets the defaults and this warning.
                tracing::warn!(error = %e, "tls client settings unusable; using the public web roots");
                ClientTlsFiles::default()
            }
        })
    }

    /// Makes `self` the process's client settings ([`ClientTlsFiles::process`]), e.g.
    /// `gamehub serve --tls` trusting the CA it generated. Returns false (and changes
    /// nothing) if channels already read them.
    pub fn install_process(self) -> bool {
        PROCESS_CLIENT.set(self).is_ok()
    }
}

static PROCESS_CLIENT: OnceLock<ClientTlsFiles> = OnceLock::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_come_in_pairs() {
        let env = Env::from_pairs([("GAMEHUB_TLS_CERT", "/c.pem")]);
        let err = TlsConfig::from_env(&env).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_TLS_KEY");
        let env = Env::from_pairs([("GAMEHUB_TLS_CLIENT_KEY", "/k.pem")]);
        let err = TlsConfig::from_env(&env).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_TLS_CLIENT_CERT");
        let env = Env::from_pairs([("GAMEHUB_TLS_CLIENT_CA", "/ca.pem")]);
        let err = TlsConfig::from_env(&env).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_TLS_CLIENT_CA");
        assert!(err.to_string().contains("GAMEHUB_TLS_CERT"));
    }

    #[test]
    fn production_needs_tls_or_a_proxy_that_terminates_it() {
        let plain = TlsConfig::default();
        assert!(plain.check_listener(Environment::Development).is_ok());
        let err = plain.check_listener(Environment::Production).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("GAMEHUB_TLS_CERT"), "{message}");
        assert!(
            message.contains("GAMEHUB_TLS_TERMINATED_BY_PROXY"),
            "{message}"
        );
        let proxied = TlsConfig::from_env(&Env::from_pairs([(
            "GAMEHUB_TLS_TERMINATED_BY_PROXY",
            "true",
        )]))
        .unwrap();
        assert!(proxied.check_listener(Environment::Production).is_ok());
        let served = TlsConfig::from_env(&Env::from_pairs([
            ("GAMEHUB_TLS_CERT", "/c.pem"),
            ("GAMEHUB_TLS_KEY", "/k.pem"),
        ]))
        .unwrap();
        assert!(served.check_listener(Environment::Production).is_ok());
    }
}
