//! The whole platform as `gamehub serve --tls` runs it, with certificates from
//! `gamehub tls generate`: every service answers health over TLS, a Gomoku game and a
//! Dou Dizhu deal are played to settlement (the game services settle at the ledger over
//! TLS), and the web client's page and configuration are served over TLS, naming the
//! services by `https://` URLs.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::client::check_health;
use gamehub_platform::tls::ClientTlsFiles;
use gamehub_testkit_services::platform::TestPlatform;
use rustls_pki_types::pem::PemObject;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn the_platform_over_tls_plays_to_settlement_and_serves_the_page() {
    let dir = std::env::temp_dir().join(format!("gamehub-serve-tls-{}", uuid::Uuid::new_v4()));
    gamehub::tls::generate(&dir, &[], &["gamehub"]).unwrap();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    // The services' own calls (and this test's) trust the CA, as `serve --tls` sets up.
    assert!(
        ClientTlsFiles {
            ca: Some(dir.join("ca.pem")),
            identity: None,
        }
        .install_process()
    );
    let (cert, key, ca) = (path("gamehub.pem"), path("gamehub-key.pem"), path("ca.pem"));
    let tp = TestPlatform::start(&[
        ("GAMEHUB_TLS_CERT", &cert),
        ("GAMEHUB_TLS_KEY", &key),
        ("GAMEHUB_TLS_CA", &ca),
    ])
    .await
    .unwrap();

    let e = &tp.endpoints;
    for url in [&e.matchmaking, &e.gomoku, &e.doudizhu, &e.ledger] {
        assert!(url.starts_with("https://"), "{url}");
        assert!(check_health(url, "").await.unwrap(), "{url}");
        let plaintext = url.replacen("https://", "http://", 1);
        assert!(check_health(&plaintext, "").await.is_err(), "{plaintext}");
    }

    let options = gamehub_demo::DemoOptions {
        think: Duration::ZERO,
        verbose: false,
        ..Default::default()
    };
    gamehub_demo::run(e, &tp.config, &options).await.unwrap();

    // The page's configuration, over TLS (HTTP/1.1: the web server offers nothing else).
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pki_types::CertificateDer::pem_file_iter(&ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    #[allow(deprecated)] // the provider the platform uses (see gamehub_platform::tls)
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(tp.platform.web.addr)
        .await
        .unwrap();
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(
            rustls_pki_types::ServerName::try_from("localhost").unwrap(),
            tcp,
        )
        .await
        .unwrap();
    tls.write_all(b"GET /config.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tls.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let port = e.matchmaking.rsplit(':').next().unwrap();
    assert!(
        answer.contains(&format!("\"matchmaking\":\"https://localhost:{port}\"")),
        "{answer}"
    );
    tp.stop().await;
    std::fs::remove_dir_all(&dir).unwrap();
}
