//! The committed API reference matches the proto comments.

#[test]
fn api_reference_is_current() {
    let generated = gamehub_proto::reference::markdown(gamehub_proto::FILE_DESCRIPTOR_SET)
        .expect("the descriptor set decodes");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/api.md");
    if std::env::var_os("UPDATE_API_DOCS").is_some() {
        std::fs::write(&path, &generated).expect("docs/api.md is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/api.md is out of date with the proto comments; run \
         `UPDATE_API_DOCS=1 cargo test -p gamehub-proto --test api_reference` and commit it"
    );
}

#[test]
fn every_service_and_rpc_is_documented() {
    let doc = gamehub_proto::reference::markdown(gamehub_proto::FILE_DESCRIPTOR_SET)
        .expect("the descriptor set decodes");
    for service in [
        "LedgerService",
        "GomokuService",
        "DoudizhuService",
        "MatchmakingService",
    ] {
        assert!(
            doc.contains(&format!("### service `{service}`")),
            "{service} missing"
        );
    }
    // No row of a table (RPC, field, enum value) without a description.
    let undocumented: Vec<&str> = doc
        .lines()
        .filter(|l| l.starts_with("| `") && l.ends_with("|  |"))
        .collect();
    assert!(
        undocumented.is_empty(),
        "undocumented rows: {undocumented:#?}"
    );
}
