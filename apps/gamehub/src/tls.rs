//! Certificates for running gamehub with TLS (docs/tls.md): `gamehub tls generate`
//! writes a CA and one certificate per service into a directory, and `gamehub serve
//! --tls` makes (or reuses) such a directory for the development platform.
//!
//! | file | what |
//! |---|---|
//! | `ca.pem`, `ca-key.pem` | the CA: trust `ca.pem` (`GAMEHUB_TLS_CA`, `GAMEHUB_TLS_CLIENT_CA`, a browser); keep `ca-key.pem` secret |
//! | `NAME.pem`, `NAME-key.pem` | a certificate and key for each of [`CERTIFICATE_NAMES`] |
//!
//! Each certificate names its service (`ledger`, …), every host given with `--hosts`,
//! `localhost` and `127.0.0.1` (so a container's healthcheck reaches it by those), and
//! serves as both server and client certificate (services present theirs to each other
//! when mTLS is required). A directory that already holds `ca.pem` and `ca-key.pem`
//! keeps its CA (what already trusts it goes on trusting the new certificates).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

/// The certificates written: the five services by identity, `gamehub` (the
/// all-in-one `gamehub serve` and its web client), `front-door` (the players' proxy in
/// front of the services, docs/front-door.md) and `client` (tools and tests that call
/// services requiring client certificates).
pub const CERTIFICATE_NAMES: [&str; 8] = [
    "ledger",
    "matchmaking",
    "tournaments",
    "gomoku-referee",
    "doudizhu-dealer",
    "gamehub",
    "front-door",
    "client",
];

/// The CA's name: fixed, so a CA read back from `ca-key.pem` issues certificates that
/// chain to the `ca.pem` beside it.
const CA_NAME: &str = "gamehub development CA";

/// How long a certificate is valid (days); the CA ten times as long.
const CERTIFICATE_DAYS: i64 = 397;

/// The most hosts one certificate names (`--hosts`).
const MAX_HOSTS: usize = 32;

/// What [`generate`] wrote.
#[derive(Debug)]
pub struct Generated {
    /// The CA certificate to trust.
    pub ca: PathBuf,
    /// Whether the CA was made now (false: the one in the directory was kept).
    pub new_ca: bool,
    /// Each name's certificate and key files.
    pub certificates: Vec<(String, PathBuf, PathBuf)>,
}

/// Writes the CA (unless `dir` has one) and a certificate for each of `names`, valid
/// for the name itself, `hosts`, `localhost` and `127.0.0.1`.
pub fn generate(dir: &Path, hosts: &[String], names: &[&str]) -> anyhow::Result<Generated> {
    if hosts.len() > MAX_HOSTS {
        anyhow::bail!(
            "{} hosts given; a certificate names at most {MAX_HOSTS}",
            hosts.len()
        );
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let (ca_path, ca_key_path) = (dir.join("ca.pem"), dir.join("ca-key.pem"));
    let new_ca = !(ca_path.exists() && ca_key_path.exists());
    let ca_key = if new_ca {
        let key = KeyPair::generate()?;
        let ca = ca_params()?.self_signed(&key)?;
        write(&ca_path, &ca.pem(), false)?;
        write(&ca_key_path, &key.serialize_pem(), true)?;
        key
    } else {
        let pem = std::fs::read_to_string(&ca_key_path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", ca_key_path.display()))?;
        KeyPair::from_pem(&pem).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a PEM private key ({e}); remove ca.pem and ca-key.pem to make a new CA",
                ca_key_path.display()
            )
        })?
    };
    let issuer = Issuer::new(ca_params()?, ca_key);

    let mut certificates = Vec::new();
    for name in names {
        let mut sans = vec![(*name).to_owned()];
        for host in hosts
            .iter()
            .map(|h| h.trim())
            .chain(["localhost", "127.0.0.1"])
        {
            if !host.is_empty() && !sans.iter().any(|s| s == host) {
                sans.push(host.to_owned());
            }
        }
        let mut params = CertificateParams::new(sans)
            .map_err(|e| anyhow::anyhow!("certificate for {name}: a host is not a name: {e}"))?;
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, *name);
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        set_validity(&mut params, CERTIFICATE_DAYS)?;
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &issuer)?;
        let (cert_path, key_path) = (
            dir.join(format!("{name}.pem")),
            dir.join(format!("{name}-key.pem")),
        );
        write(&cert_path, &cert.pem(), false)?;
        write(&key_path, &key.serialize_pem(), true)?;
        certificates.push(((*name).to_owned(), cert_path, key_path));
    }
    Ok(Generated {
        ca: ca_path,
        new_ca,
        certificates,
    })
}

/// The CA's parameters (the same every time: see [`CA_NAME`]).
fn ca_params() -> anyhow::Result<CertificateParams> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.distinguished_name = DistinguishedName::new();
    params.distinguished_name.push(DnType::CommonName, CA_NAME);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    set_validity(&mut params, CERTIFICATE_DAYS * 10)?;
    Ok(params)
}

/// Valid from yesterday (clocks differ a little, midnight UTC) for `days`.
fn set_validity(params: &mut CertificateParams, days: i64) -> anyhow::Result<()> {
    use chrono::Datelike;
    let ymd = |offset: i64| -> anyhow::Result<(i32, u8, u8)> {
        let date = chrono::Utc::now().date_naive() + chrono::Duration::days(offset);
        Ok((
            date.year(),
            u8::try_from(date.month())?,
            u8::try_from(date.day())?,
        ))
    };
    let (y, m, d) = ymd(-1)?;
    params.not_before = rcgen::date_time_ymd(y, m, d);
    let (y, m, d) = ymd(days)?;
    params.not_after = rcgen::date_time_ymd(y, m, d);
    Ok(())
}

/// Writes `pem` to `path`; a key readable by its owner only.
fn write(path: &Path, pem: &str, secret: bool) -> anyhow::Result<()> {
    std::fs::write(path, pem)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| anyhow::anyhow!("cannot restrict {}: {e}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = secret;
    Ok(())
}

/// Where `gamehub serve --tls` keeps its certificates by default:
/// `$XDG_DATA_HOME/gamehub/tls`, else `~/.local/share/gamehub/tls`, else `./gamehub-tls`.
pub fn default_dev_dir() -> PathBuf {
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(data).join("gamehub/tls");
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => PathBuf::from(home).join(".local/share/gamehub/tls"),
        None => PathBuf::from("gamehub-tls"),
    }
}

/// The development platform's certificate in `dir` (`gamehub.pem`, `gamehub-key.pem`)
/// and the CA, made on first use: (CA, certificate, key).
pub fn dev_certificate(dir: &Path) -> anyhow::Result<(PathBuf, PathBuf, PathBuf)> {
    let (ca, cert, key) = (
        dir.join("ca.pem"),
        dir.join("gamehub.pem"),
        dir.join("gamehub-key.pem"),
    );
    if !(ca.exists() && cert.exists() && key.exists()) {
        generate(dir, &[], &["gamehub"])?;
    }
    Ok((ca, cert, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_keeps_its_ca_and_renews_the_certificates() {
        let dir = std::env::temp_dir().join(format!("gamehub-tlsgen-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = generate(&dir, &["ledger.internal".into()], &CERTIFICATE_NAMES).unwrap();
        assert!(first.new_ca);
        assert_eq!(first.certificates.len(), CERTIFICATE_NAMES.len());
        let ca = std::fs::read_to_string(&first.ca).unwrap();
        let ledger = std::fs::read_to_string(dir.join("ledger.pem")).unwrap();
        let second = generate(&dir, &[], &["ledger"]).unwrap();
        assert!(!second.new_ca);
        assert_eq!(std::fs::read_to_string(&second.ca).unwrap(), ca);
        assert_ne!(
            std::fs::read_to_string(dir.join("ledger.pem")).unwrap(),
            ledger
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join("ca-key.pem"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "the CA key is private");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
