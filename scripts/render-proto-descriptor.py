"""Renders the file descriptor a generated *_pb2 module carries as .proto source.

The official Python SDK ships its Flight messages only as serialized descriptors
(arize/_generated/protocol/flight/flight_pb2.py); proto/public/flight.proto was written by this
script, run with the SDK's interpreter:

    .tools/arize-8.61.0/bin/python scripts/render-proto-descriptor.py \
        arize._generated.protocol.flight.flight_pb2
"""
import sys, importlib
from google.protobuf import descriptor_pb2 as d

T = d.FieldDescriptorProto
SCALAR = {T.TYPE_DOUBLE:"double",T.TYPE_FLOAT:"float",T.TYPE_INT64:"int64",T.TYPE_UINT64:"uint64",
  T.TYPE_INT32:"int32",T.TYPE_FIXED64:"fixed64",T.TYPE_FIXED32:"fixed32",T.TYPE_BOOL:"bool",
  T.TYPE_STRING:"string",T.TYPE_BYTES:"bytes",T.TYPE_UINT32:"uint32",T.TYPE_SFIXED32:"sfixed32",
  T.TYPE_SFIXED64:"sfixed64",T.TYPE_SINT32:"sint32",T.TYPE_SINT64:"sint64"}

def tname(f, pkg):
    if f.type in SCALAR: return SCALAR[f.type]
    n = f.type_name
    if n.startswith("." + pkg + "."): return n[len(pkg)+2:]
    return n.lstrip(".")

def opts(f):
    o = []
    if f.options.HasField("deprecated") and f.options.deprecated: o.append("deprecated = true")
    return (" [" + ", ".join(o) + "]") if o else ""

def enum(e, ind, out):
    out.append(f"{ind}enum {e.name} {{")
    for v in e.value: out.append(f"{ind}  {v.name} = {v.number};")
    out.append(f"{ind}}}")

def message(m, ind, out, pkg, syntax, scope=""):
    full = f"{scope}.{m.name}" if scope else m.name
    out.append(f"{ind}message {m.name} {{")
    for e in m.enum_type: enum(e, ind + "  ", out)
    for n in m.nested_type:
        if n.options.map_entry: continue
        message(n, ind + "  ", out, pkg, syntax, full)
    maps = {"." + pkg + "." + full + "." + n.name: n for n in m.nested_type if n.options.map_entry}
    done_oneof = set()
    for f in m.field:
        synthetic = f.HasField("oneof_index") and f.proto3_optional
        if f.HasField("oneof_index") and not synthetic:
            i = f.oneof_index
            if i in done_oneof: continue
            done_oneof.add(i)
            out.append(f"{ind}  oneof {m.oneof_decl[i].name} {{")
            for g in m.field:
                if g.HasField("oneof_index") and g.oneof_index == i:
                    out.append(f"{ind}    {tname(g, pkg)} {g.name} = {g.number}{opts(g)};")
            out.append(f"{ind}  }}")
            continue
        label = ""
        if f.label == T.LABEL_REPEATED:
            if f.type_name.lstrip(".") and ("." + f.type_name.lstrip(".")) in maps:
                e = maps["." + f.type_name.lstrip(".")]
                k, v = e.field[0], e.field[1]
                out.append(f"{ind}  map<{tname(k,pkg)}, {tname(v,pkg)}> {f.name} = {f.number}{opts(f)};")
                continue
            label = "repeated "
        elif synthetic or (syntax == "proto2" and f.label == T.LABEL_OPTIONAL):
            label = "optional "
        out.append(f"{ind}  {label}{tname(f, pkg)} {f.name} = {f.number}{opts(f)};")
    for r in m.reserved_range:
        out.append(f"{ind}  reserved {r.start};" if r.end == r.start + 1 else f"{ind}  reserved {r.start} to {r.end - 1};")
    for n in m.reserved_name: out.append(f'{ind}  reserved "{n}";')
    out.append(f"{ind}}}")

mod = importlib.import_module(sys.argv[1])
p = d.FileDescriptorProto(); mod.DESCRIPTOR.CopyToProto(p)
syntax = p.syntax or "proto2"
out = [f'syntax = "{syntax}";', "", f"package {p.package};", ""]
for dep in p.dependency: out.append(f'import "{dep}";')
if p.dependency: out.append("")
for k in ("go_package", "java_package"):
    if p.options.HasField(k): out.append(f'option {k} = "{getattr(p.options, k)}";')
out.append("")
for e in p.enum_type: enum(e, "", out); out.append("")
for m in p.message_type: message(m, "", out, p.package, syntax); out.append("")
if p.service:
    raise SystemExit("services are not rendered")
print("\n".join(out).rstrip() + "\n")
