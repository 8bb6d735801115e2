import {
  HTTP_METHODS,
  isReference,
  resolve,
  type JsonSchema,
  type OpenApiDocument,
  type Parameter,
  type RequestBody,
  type ResponseObject,
} from "./document.ts";

const esc = (s: unknown): string =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** Escaped prose with `code` spans and blank-line paragraphs. */
const prose = (s: string | undefined): string =>
  s
    ? s
        .trim()
        .split(/\n\s*\n/)
        .map((p) => `<p>${esc(p).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`)
        .join("")
    : "";

const refName = (ref: string): string => ref.slice(ref.lastIndexOf("/") + 1);

function typeOf(s: JsonSchema | undefined): string {
  if (!s) return "any";
  if (isReference(s))
    return `<a href="#schema-${esc(refName(s.$ref))}">${esc(refName(s.$ref))}</a>`;
  if (Array.isArray(s.enum)) return `enum: ${s.enum.map(esc).join(" | ")}`;
  if (s.type === "array") return `array of ${typeOf(s.items as JsonSchema | undefined)}`;
  const t = Array.isArray(s.type) ? s.type.join(" | ") : String(s.type ?? "any");
  return esc(s.format ? `${t} (${String(s.format)})` : t);
}

const CONSTRAINTS = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "pattern",
  "default",
];
const constraints = (s: JsonSchema | undefined): string =>
  s && !isReference(s)
    ? CONSTRAINTS.filter((k) => s[k] !== undefined)
        .map((k) => `${k}: <code>${esc(JSON.stringify(s[k]))}</code>`)
        .join("<br>")
    : "";

const table = (head: string[], rows: string[][]): string =>
  rows.length === 0
    ? ""
    : `<table><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</table>`;

function schemaTable(s: JsonSchema): string {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required ?? []) as string[]);
  const rows = Object.entries(props).map(([name, p]) => [
    `<code>${esc(name)}</code>`,
    typeOf(p),
    required.has(name) ? "yes" : "",
    constraints(p),
    prose(p.description as string | undefined),
  ]);
  const closed =
    s.additionalProperties === false ? "<p class=note>Other fields are rejected.</p>" : "";
  return table(["field", "type", "required", "constraints", "description"], rows) + closed;
}

function operations(doc: OpenApiDocument): string {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        resolve<Parameter>(doc, p),
      );
      const body = op.requestBody ? resolve<RequestBody>(doc, op.requestBody) : undefined;
      const bodySchema = body?.content["application/json"]?.schema;
      const responses = Object.entries(op.responses ?? {}).map(([code, r]) => {
        const res = resolve<ResponseObject>(doc, r);
        const media = Object.entries(res.content ?? {})[0];
        return [
          `<code>${esc(code)}</code>`,
          esc(res.description),
          media ? `${esc(media[0])}: ${typeOf(media[1].schema)}` : "",
        ];
      });
      out.push(`<section id="op-${esc(op.operationId)}">
<h2><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h2>
<p class=id>${esc(op.operationId)} — ${esc(op.summary ?? "")}</p>${prose(op.description)}
${params.length ? "<h3>Parameters</h3>" : ""}${table(
        ["name", "in", "type", "required", "constraints", "description"],
        params.map((p) => [
          `<code>${esc(p.name)}</code>`,
          p.in,
          typeOf(p.schema),
          p.required ? "yes" : "",
          constraints(p.schema),
          prose(p.description),
        ]),
      )}
${bodySchema ? `<h3>Request body (application/json${body?.required ? ", required" : ""})</h3><p>${typeOf(bodySchema)}</p>` : ""}
<h3>Responses</h3>${table(["status", "description", "body"], responses)}
</section>`);
    }
  }
  return out.join("\n");
}

export const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}
code{font:13px ui-monospace,monospace;background:#f3f3f3;padding:0 .2em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#fafafa}section{border-top:1px solid #ccc;padding-top:.5rem;margin-top:1.5rem}td p{margin:0}
.m{color:#fff;padding:.1em .5em;border-radius:3px;font-size:13px}.get{background:#2a7}.post{background:#27c}.put,.patch{background:#c82}.delete{background:#c33}
.id,.note{color:#666}`;

/** The reference page for `GET /v2/docs`: self-contained HTML, no scripts or remote assets. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(
      ([
        name,
        s,
      ]) => `<section id="schema-${esc(name)}"><h2>${esc(name)}</h2>${prose(s.description as string | undefined)}
<p>${s.type === "object" ? "object" : typeOf(s)} ${constraints(s)}</p>${schemaTable(s)}</section>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(doc.info.title)}</title><style>${STYLE}</style></head>
<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>${prose(doc.info.description)}
<p>Machine-readable contract: <a href="/v2/spec.yaml">/v2/spec.yaml</a></p>
<h2>Operations</h2>${operations(doc)}
<h2>Schemas</h2>${schemas}
</body></html>`;
}
