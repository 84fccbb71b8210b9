//! The API reference (`docs/api.md`), generated from the comments of the `.proto` files.
//!
//! The descriptor set carries every comment (protox keeps source info), so the reference
//! is written from the contract itself: services with their RPCs, messages with their
//! fields, enums with their values. The test `api_reference_is_current` fails when the
//! committed document differs; `UPDATE_API_DOCS=1 cargo test -p gamehub-proto` rewrites it.

use std::collections::HashMap;
use std::fmt::Write;

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
    FileDescriptorSet,
};

// Field numbers of FileDescriptorProto / DescriptorProto / … used in source-info paths.
const FILE_PACKAGE: i32 = 2;
const FILE_MESSAGE: i32 = 4;
const FILE_ENUM: i32 = 5;
const FILE_SERVICE: i32 = 6;
const MESSAGE_FIELD: i32 = 2;
const MESSAGE_NESTED: i32 = 3;
const MESSAGE_ENUM: i32 = 4;
const ENUM_VALUE: i32 = 2;
const SERVICE_METHOD: i32 = 2;

struct Comments(HashMap<Vec<i32>, String>);

impl Comments {
    fn of(file: &FileDescriptorProto) -> Self {
        let mut map = HashMap::new();
        if let Some(info) = &file.source_code_info {
            for location in &info.location {
                if let Some(text) = &location.leading_comments {
                    map.insert(location.path.clone(), text.trim().to_owned());
                }
            }
        }
        Self(map)
    }

    fn get(&self, path: &[i32]) -> &str {
        self.0.get(path).map(String::as_str).unwrap_or("")
    }
}

/// One line for a table cell: newlines become spaces, pipes are escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn type_name(field: &FieldDescriptorProto) -> String {
    let base = match field.r#type() {
        Type::Message | Type::Enum => field
            .type_name
            .as_deref()
            .unwrap_or("")
            .trim_start_matches('.')
            .to_owned(),
        Type::Double => "double".into(),
        Type::Float => "float".into(),
        Type::Int64 => "int64".into(),
        Type::Uint64 => "uint64".into(),
        Type::Int32 => "int32".into(),
        Type::Fixed64 => "fixed64".into(),
        Type::Fixed32 => "fixed32".into(),
        Type::Bool => "bool".into(),
        Type::String => "string".into(),
        Type::Group => "group".into(),
        Type::Bytes => "bytes".into(),
        Type::Uint32 => "uint32".into(),
        Type::Sfixed32 => "sfixed32".into(),
        Type::Sfixed64 => "sfixed64".into(),
        Type::Sint32 => "sint32".into(),
        Type::Sint64 => "sint64".into(),
    };
    if field.label() == Label::Repeated {
        format!("repeated {base}")
    } else if field.proto3_optional == Some(true) {
        format!("optional {base}")
    } else {
        base
    }
}

fn write_enum(
    out: &mut String,
    comments: &Comments,
    path: &[i32],
    prefix: &str,
    e: &EnumDescriptorProto,
) {
    let name = format!("{prefix}{}", e.name());
    let _ = writeln!(out, "#### enum `{name}`\n");
    let text = comments.get(path);
    if !text.is_empty() {
        let _ = writeln!(out, "{text}\n");
    }
    let _ = writeln!(out, "| value | number | meaning |\n|---|---|---|");
    for (i, value) in e.value.iter().enumerate() {
        let mut p = path.to_vec();
        p.extend([ENUM_VALUE, i as i32]);
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            value.name(),
            value.number(),
            cell(comments.get(&p))
        );
    }
    out.push('\n');
}

fn write_message(
    out: &mut String,
    comments: &Comments,
    path: &[i32],
    prefix: &str,
    m: &DescriptorProto,
) {
    let name = format!("{prefix}{}", m.name());
    let _ = writeln!(out, "#### message `{name}`\n");
    let text = comments.get(path);
    if !text.is_empty() {
        let _ = writeln!(out, "{text}\n");
    }
    if m.field.is_empty() {
        let _ = writeln!(out, "No fields.\n");
    } else {
        let _ = writeln!(
            out,
            "| field | type | number | meaning |\n|---|---|---|---|"
        );
        for (i, field) in m.field.iter().enumerate() {
            let mut p = path.to_vec();
            p.extend([MESSAGE_FIELD, i as i32]);
            let oneof = field
                .oneof_index
                .filter(|_| field.proto3_optional != Some(true))
                .and_then(|i| m.oneof_decl.get(i as usize))
                .map(|o| format!(" (one of `{}`)", o.name()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {}{oneof} |",
                field.name(),
                type_name(field),
                field.number(),
                cell(comments.get(&p))
            );
        }
        out.push('\n');
    }
    for (i, nested) in m.nested_type.iter().enumerate() {
        if nested.options.as_ref().is_some_and(|o| o.map_entry()) {
            continue;
        }
        let mut p = path.to_vec();
        p.extend([MESSAGE_NESTED, i as i32]);
        write_message(out, comments, &p, &format!("{name}."), nested);
    }
    for (i, e) in m.enum_type.iter().enumerate() {
        let mut p = path.to_vec();
        p.extend([MESSAGE_ENUM, i as i32]);
        write_enum(out, comments, &p, &format!("{name}."), e);
    }
}

/// The reference as Markdown, from an encoded `FileDescriptorSet`.
pub fn markdown(encoded_descriptor_set: &[u8]) -> Result<String, prost::DecodeError> {
    let set = FileDescriptorSet::decode(encoded_descriptor_set)?;
    let mut files: Vec<&FileDescriptorProto> = set
        .file
        .iter()
        .filter(|f| f.package().starts_with("gamehub."))
        .collect();
    files.sort_by_key(|f| f.name().to_owned());

    let mut out = String::new();
    out.push_str(
        "# gamehub API reference\n\n\
         Generated from the comments of the `.proto` files under `proto/` (the contract); \
         do not edit by hand. `UPDATE_API_DOCS=1 cargo test -p gamehub-proto` rewrites it, \
         and the test `api_reference_is_current` fails when it is out of date.\n\n\
         Every call needs `authorization: Bearer <JWT>` metadata, except the standard \
         `grpc.health.v1.Health` and reflection services.\n\n",
    );
    out.push_str("## Contents\n\n");
    for file in &files {
        let _ = writeln!(
            out,
            "- [`{}`](#{}) — `{}`",
            file.package(),
            anchor(file.package()),
            file.name()
        );
    }
    out.push('\n');
    for file in files {
        let comments = Comments::of(file);
        let _ = writeln!(out, "## {}\n", file.package());
        let _ = writeln!(out, "File `proto/{}`.\n", file.name());
        let text = comments.get(&[FILE_PACKAGE]);
        if !text.is_empty() {
            let _ = writeln!(out, "{text}\n");
        }
        for (i, service) in file.service.iter().enumerate() {
            let _ = writeln!(out, "### service `{}`\n", service.name());
            let text = comments.get(&[FILE_SERVICE, i as i32]);
            if !text.is_empty() {
                let _ = writeln!(out, "{text}\n");
            }
            let _ = writeln!(
                out,
                "| RPC | request | response | what it does |\n|---|---|---|---|"
            );
            for (j, method) in service.method.iter().enumerate() {
                let stream = |yes: bool| if yes { "stream " } else { "" };
                let _ = writeln!(
                    out,
                    "| `{}` | `{}{}` | `{}{}` | {} |",
                    method.name(),
                    stream(method.client_streaming()),
                    method.input_type().trim_start_matches('.'),
                    stream(method.server_streaming()),
                    method.output_type().trim_start_matches('.'),
                    cell(comments.get(&[FILE_SERVICE, i as i32, SERVICE_METHOD, j as i32]))
                );
            }
            out.push('\n');
        }
        if !file.message_type.is_empty() {
            out.push_str("### Messages\n\n");
            for (i, message) in file.message_type.iter().enumerate() {
                write_message(&mut out, &comments, &[FILE_MESSAGE, i as i32], "", message);
            }
        }
        if !file.enum_type.is_empty() {
            out.push_str("### Enums\n\n");
            for (i, e) in file.enum_type.iter().enumerate() {
                write_enum(&mut out, &comments, &[FILE_ENUM, i as i32], "", e);
            }
        }
    }
    Ok(out)
}

fn anchor(package: &str) -> String {
    package.replace('.', "")
}
