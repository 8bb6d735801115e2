"""Parses a JSON answer (stdin) with one of the SDK's generated models and prints it back.

argv: module name under arize._generated.api_client.models, class name.
"""
import importlib
import json
import sys

module, name = sys.argv[1:3]
model = getattr(importlib.import_module(f"arize._generated.api_client.models.{module}"), name)
print(json.dumps(model.from_json(sys.stdin.read()).to_dict()))
