//! Ed25519 key pairs made for the fuzz targets only (never used anywhere else): the
//! private halves sign the tokens the `jwt` target builds from its input, the public
//! halves make the JWKS its keys verify against.

/// The issuer key (any subject, any role). PKCS#8 PEM, made with
/// `openssl genpkey -algorithm ed25519`.
pub const ISSUER_PEM: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIKBr+GKmIvzLnZD4nO0mdvpKvSPI09WilqQHf2N29OMq
-----END PRIVATE KEY-----
";

/// The key scoped to the service [`SERVICE_SUBJECT`] (its service tokens only).
pub const SERVICE_PEM: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIAqs0u+Hky+WG5w7eENxCBSSJY4W5lRuqoeYnOWtwHBQ
-----END PRIVATE KEY-----
";

/// The service whose key [`SERVICE_PEM`] is.
pub const SERVICE_SUBJECT: &str = "ledger";
