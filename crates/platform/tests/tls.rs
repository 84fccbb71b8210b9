//! TLS on the shared gRPC server over real sockets: a client that trusts the CA is
//! served and one that does not is refused; with client certificates required (mTLS) a
//! client without one is refused at the handshake; a certificate replaced on disk is
//! served to the next connection without a restart (and a broken one is not);
//! gRPC-Web over HTTP/1.1 works over TLS; handshakes that never finish hold up no one;
//! production refuses a plaintext listener.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::client::check_health_with_tls;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::{GrpcServer, Shutdown};
use gamehub_platform::tls::{ClientTlsFiles, RELOAD_CHECK_INTERVAL, ServerTlsFiles, TlsConfig};
use gamehub_proto::ledger::ledger_service_server::LedgerServiceServer;
use gamehub_testkit::stub_ledger::StubLedger;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A certificate authority made for one test.
struct Ca(CertifiedIssuer<'static, KeyPair>);

impl Ca {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        Self(CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap())
    }

    fn pem(&self) -> String {
        self.0.pem()
    }

    /// A leaf certificate for `name`, valid for 127.0.0.1 and localhost, for servers
    /// and clients alike: (certificate PEM, key PEM).
    fn issue(&self, name: &str) -> (String, String) {
        let mut params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &*self.0).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// A directory of PEM files for one test.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("gamehub-tls-{}", uuid_like()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn write(&self, name: &str, pem: &str) -> PathBuf {
        let path = self.0.join(name);
        // Written beside and renamed, as an operator's tooling (or a Kubernetes secret
        // update) replaces a file: a reader never sees half of it.
        let partial = self.0.join(format!("{name}.partial"));
        std::fs::write(&partial, pem).unwrap();
        std::fs::rename(&partial, &path).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uuid_like() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The server's files: `server.pem`, `server-key.pem`, and when given the client CA.
fn server_files(dir: &Dir, ca: &Ca, client_ca: Option<&Ca>) -> ServerTlsFiles {
    let (cert, key) = ca.issue("ledger");
    ServerTlsFiles {
        cert: dir.write("server.pem", &cert),
        key: dir.write("server-key.pem", &key),
        client_ca: client_ca.map(|c| dir.write("client-ca.pem", &c.pem())),
    }
}

struct Served {
    addr: SocketAddr,
    shutdown: Shutdown,
}

impl Served {
    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.addr.port())
    }
}

async fn serve(config: CommonConfig) -> Served {
    let shutdown = Shutdown::new();
    let server = GrpcServer::new("tls-test", &config, shutdown.clone())
        .add_service(LedgerServiceServer::new(StubLedger::default()));
    let (addr, _task) = server.spawn("127.0.0.1:0".parse().unwrap()).await.unwrap();
    Served { addr, shutdown }
}

fn config_with(server: ServerTlsFiles) -> CommonConfig {
    let mut config = CommonConfig::for_tests();
    config.tls = TlsConfig {
        server: Some(server),
        ..TlsConfig::default()
    };
    config
}

fn trusting(dir: &Dir, ca: &Ca) -> ClientTlsFiles {
    ClientTlsFiles {
        ca: Some(dir.write(&format!("trust-{}.pem", uuid_like()), &ca.pem())),
        identity: None,
    }
}

#[tokio::test]
async fn a_client_that_trusts_the_ca_is_served_and_others_are_refused() {
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let served = serve(config_with(server_files(&dir, &ca, None))).await;

    let trusted = trusting(&dir, &ca);
    assert!(
        check_health_with_tls(&served.url(), "", &trusted)
            .await
            .unwrap()
    );
    // By name as well as by address: the certificate names both.
    let by_name = format!("https://localhost:{}", served.addr.port());
    assert!(check_health_with_tls(&by_name, "", &trusted).await.unwrap());

    let stranger = trusting(&dir, &Ca::new("someone else's CA"));
    let refused = check_health_with_tls(&served.url(), "", &stranger).await;
    assert!(refused.is_err(), "{refused:?}");
    // Nor does a plaintext client get an answer from a TLS listener.
    let plaintext = format!("http://127.0.0.1:{}", served.addr.port());
    assert!(
        check_health_with_tls(&plaintext, "", &trusted)
            .await
            .is_err()
    );
    // Still serving after the refused handshakes.
    assert!(
        check_health_with_tls(&served.url(), "", &trusted)
            .await
            .unwrap()
    );
    served.shutdown.trigger();
}

#[tokio::test]
async fn with_client_certificates_required_only_a_client_holding_one_is_served() {
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let clients_ca = Ca::new("gamehub clients CA");
    let served = serve(config_with(server_files(&dir, &ca, Some(&clients_ca)))).await;

    let anonymous = trusting(&dir, &ca);
    let refused = check_health_with_tls(&served.url(), "", &anonymous).await;
    assert!(refused.is_err(), "{refused:?}");

    let (cert, key) = clients_ca.issue("matchmaking");
    let holder = ClientTlsFiles {
        identity: Some((
            dir.write("client.pem", &cert),
            dir.write("client-key.pem", &key),
        )),
        ..anonymous.clone()
    };
    assert!(
        check_health_with_tls(&served.url(), "", &holder)
            .await
            .unwrap()
    );

    // A certificate from a CA the server does not name is no better than none.
    let (cert, key) = Ca::new("a forger's CA").issue("matchmaking");
    let forger = ClientTlsFiles {
        identity: Some((
            dir.write("forged.pem", &cert),
            dir.write("forged-key.pem", &key),
        )),
        ..anonymous
    };
    let refused = check_health_with_tls(&served.url(), "", &forger).await;
    assert!(refused.is_err(), "{refused:?}");
    served.shutdown.trigger();
}

/// Connects with a rustls client trusting `ca` and offering `alpn`; the connection.
async fn connect(
    addr: SocketAddr,
    ca: &Ca,
    alpn: &[u8],
) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca.pem().as_bytes()).unwrap())
        .unwrap();
    #[allow(deprecated)] // the provider the platform uses (see gamehub_platform::tls)
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap()
}

/// The leaf certificate a new connection is served.
async fn served_certificate(addr: SocketAddr, ca: &Ca) -> Vec<u8> {
    let tls = connect(addr, ca, b"h2").await;
    tls.get_ref().1.peer_certificates().unwrap()[0].to_vec()
}

fn der_of(pem: &str) -> Vec<u8> {
    CertificateDer::from_pem_slice(pem.as_bytes())
        .unwrap()
        .to_vec()
}

fn replace(path: &Path, dir: &Dir, pem: &str) {
    dir.write(path.file_name().unwrap().to_str().unwrap(), pem);
}

#[tokio::test]
async fn a_certificate_replaced_on_disk_is_served_to_the_next_connection() {
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let files = server_files(&dir, &ca, None);
    let first = der_of(&std::fs::read_to_string(&files.cert).unwrap());
    let served = serve(config_with(files.clone())).await;
    assert_eq!(served_certificate(served.addr, &ca).await, first);

    // A file that does not load is not served: the previous certificate stays.
    replace(&files.cert, &dir, "-----BEGIN CERTIFICATE-----\nbroken\n");
    tokio::time::sleep(RELOAD_CHECK_INTERVAL + Duration::from_millis(300)).await;
    assert_eq!(served_certificate(served.addr, &ca).await, first);

    // A renewed certificate and key are served to the next connection.
    let (cert, key) = ca.issue("ledger renewed");
    replace(&files.key, &dir, &key);
    replace(&files.cert, &dir, &cert);
    tokio::time::sleep(RELOAD_CHECK_INTERVAL + Duration::from_millis(300)).await;
    let renewed = served_certificate(served.addr, &ca).await;
    assert_eq!(renewed, der_of(&cert));
    assert_ne!(renewed, first);
    assert!(
        check_health_with_tls(&served.url(), "", &trusting(&dir, &ca))
            .await
            .unwrap()
    );
    served.shutdown.trigger();
}

#[tokio::test]
async fn grpc_web_over_http1_works_over_tls() {
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let served = serve(config_with(server_files(&dir, &ca, None))).await;

    let mut tls = connect(served.addr, &ca, b"http/1.1").await;
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    // grpc.health.v1.Health/Check with an empty request: one uncompressed frame of
    // length 0.
    let request = "POST /grpc.health.v1.Health/Check HTTP/1.1\r\n\
                   Host: localhost\r\n\
                   Content-Type: application/grpc-web+proto\r\n\
                   X-Grpc-Web: 1\r\n\
                   Content-Length: 5\r\n\
                   Connection: close\r\n\r\n";
    tls.write_all(request.as_bytes()).await.unwrap();
    tls.write_all(&[0, 0, 0, 0, 0]).await.unwrap();
    tls.flush().await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), tls.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("content-type: application/grpc-web"),
        "{text}"
    );
    // The reply's message frame: HealthCheckResponse { status: SERVING (1) }.
    let frame: &[u8] = &[0, 0, 0, 0, 2, 0x08, 0x01];
    assert!(
        answer.windows(frame.len()).any(|w| w == frame),
        "no SERVING frame in {text}"
    );
    served.shutdown.trigger();
}

#[tokio::test]
async fn production_refuses_a_plaintext_listener_unless_a_proxy_terminates_tls() {
    // Production verifies tokens with public keys only: a JWKS made for this test.
    let keys = std::env::temp_dir().join(format!("gamehub-tls-keys-{}", uuid::Uuid::new_v4()));
    gamehub_platform::auth::key_dir::generate(&keys).unwrap();
    let jwks = keys.join("jwks.json");
    let jwks = jwks.to_str().unwrap();
    let config = CommonConfig::from_env(&Env::from_pairs([
        ("GAMEHUB_ENV", "production"),
        ("GAMEHUB_JWKS", jwks),
    ]))
    .unwrap();
    let shutdown = Shutdown::new();
    let (_, task) = GrpcServer::new("tls-test", &config, shutdown.clone())
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let message = task.await.unwrap().unwrap_err().to_string();
    assert!(message.contains("GAMEHUB_TLS_CERT"), "{message}");
    assert!(
        message.contains("GAMEHUB_TLS_TERMINATED_BY_PROXY"),
        "{message}"
    );

    let proxied = CommonConfig::from_env(&Env::from_pairs([
        ("GAMEHUB_ENV", "production"),
        ("GAMEHUB_JWKS", jwks),
        ("GAMEHUB_TLS_TERMINATED_BY_PROXY", "true"),
    ]))
    .unwrap();
    let served = serve(proxied).await;
    let url = format!("http://127.0.0.1:{}", served.addr.port());
    assert!(
        gamehub_platform::client::check_health(&url, "")
            .await
            .unwrap()
    );
    served.shutdown.trigger();

    // With TLS, production serves.
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let mut with_tls = config.clone();
    with_tls.tls.server = Some(server_files(&dir, &ca, None));
    let served = serve(with_tls).await;
    assert!(
        check_health_with_tls(&served.url(), "", &trusting(&dir, &ca))
            .await
            .unwrap()
    );
    served.shutdown.trigger();
}

#[tokio::test]
async fn clients_that_never_finish_a_handshake_do_not_hold_up_the_others() {
    let dir = Dir::new();
    let ca = Ca::new("gamehub test CA");
    let served = serve(config_with(server_files(&dir, &ca, None))).await;
    // Connected, but never a ClientHello: each handshake waits on its own.
    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(tokio::net::TcpStream::connect(served.addr).await.unwrap());
    }
    let trusted = trusting(&dir, &ca);
    let answered = tokio::time::timeout(
        Duration::from_secs(3),
        check_health_with_tls(&served.url(), "", &trusted),
    )
    .await;
    assert!(matches!(answered, Ok(Ok(true))), "{answered:?}");
    drop(silent);
    served.shutdown.trigger();
}
