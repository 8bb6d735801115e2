"""The SDK's side of the contract test (test/sdk-contract.e2e.test.ts).

`contract.py operations` prints, as JSON, every operation of the SDK's generated client:
{operation_id: {method, path, responses: {status: model or null}}}, read from the source of
arize/_generated/api_client/api/*_api.py (each operation is a method named after its operation
id, whose `_response_types_map` names the model of each status; `_<id>_serialize` names the
method and path).

`contract.py parse` reads a JSON list of answers on stdin, each {operation_id, status,
content_type, body} (body: the raw text), and deserializes each 2xx body exactly as the SDK's
client does (ApiClient.deserialize with the model its map names for that status). Prints a
JSON list, one entry per answer: {operation_id, status, model, error} (error: null when the
SDK parsed it).
"""
import ast
import json
import pathlib
import sys

import arize._generated.api_client as gen
from arize._generated.api_client.api_client import ApiClient


def literal_dict(node):
    return {k.value: (v.value if isinstance(v, ast.Constant) else None) for k, v in zip(node.keys, node.values)}


def sdk_operations():
    ops = {}
    for file in sorted((pathlib.Path(gen.__file__).parent / "api").glob("*_api.py")):
        tree = ast.parse(file.read_text())
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
            for name, fn in methods.items():
                if name.startswith("_") or name.endswith(("_with_http_info", "_without_preload_content")):
                    continue
                responses = None
                for node in ast.walk(fn):
                    if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "_response_types_map":
                        responses = literal_dict(node.value)
                serialize = methods.get(f"_{name}_serialize")
                if responses is None or serialize is None:
                    continue
                call = {}
                for node in ast.walk(serialize):
                    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "param_serialize":
                        call = {k.arg: k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)}
                ops[name] = {
                    "module": file.stem,
                    "method": call.get("method"),
                    "path": call.get("resource_path"),
                    "responses": responses,
                }
    return ops


def parse(answers):
    ops = sdk_operations()
    client = ApiClient()
    out = []
    for a in answers:
        op = ops.get(a["operation_id"])
        status = str(a["status"])
        entry = {"operation_id": a["operation_id"], "status": a["status"], "model": None, "error": None}
        if op is None:
            entry["error"] = "the SDK has no such operation"
        else:
            responses = op["responses"]
            model = responses.get(status) or responses.get(status[0] + "XX")
            entry["model"] = model
            success_models = {s: m for s, m in responses.items() if s.startswith("2") and m}
            if model is None and success_models:
                entry["error"] = f"status {status} has no model in the SDK, which reads {success_models}"
            elif model is None and a["body"]:
                entry["error"] = f"status {status}: the SDK expects no body, got {a['body'][:200]}"
            elif model is not None:
                try:
                    client.deserialize(a["body"], model, a["content_type"])
                except Exception as e:  # what a user of the SDK would get
                    entry["error"] = f"{type(e).__name__}: {e}"
        out.append(entry)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "operations":
        print(json.dumps(sdk_operations()))
    else:
        print(json.dumps(parse(json.load(sys.stdin))))
