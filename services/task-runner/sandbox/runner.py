# The Argus task runner's host for one CUSTOM code evaluator (services/task-runner/README.md, "The CUSTOM code sandbox").
# Started by services/task-runner/src/worker/sandbox.ts as `python3 -I -S -B runner.py`, with
# an empty environment, in an empty working directory. Protocol on stdin/stdout, one JSON
# object per line:
#   -> {"code", "imports", "static_params", "memory_bytes", "cpu_seconds", "hooks"}
#   <- {"ready": true} | {"error": "..."}
#   -> {"values": {variable: text}}              (one item)
#   <- {"result": {"label", "score", "explanation"}} | {"error": "..."}
# The evaluator's own output (print) goes to stderr; stdout is the protocol's alone.
import inspect
import json
import os
import resource
import sys
import traceback
import types

protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
sys.stdout = sys.stderr


def send(message):
    protocol.write(json.dumps(message, default=str) + "\n")
    protocol.flush()


class EvaluationResult:
    """What an evaluator may return (the names of arize's EvaluationResult)."""

    def __init__(self, score=None, label=None, explanation=None, metadata=None):
        self.score = score
        self.label = label
        self.explanation = explanation
        self.metadata = metadata or {}


class CodeEvaluator:
    """The base class user code may extend, as in arize's experiments evaluators."""

    def evaluate(self, **kwargs):
        raise NotImplementedError


# `from arize.experiments.evaluators.base import CodeEvaluator, EvaluationResult` and the
# older `arize.experimental.datasets…` spelling both work without the SDK installed.
for module_name in (
    "arize",
    "arize.experiments",
    "arize.experiments.evaluators",
    "arize.experiments.evaluators.base",
    "arize.experiments.evaluators.types",
    "arize.experimental",
    "arize.experimental.datasets",
    "arize.experimental.datasets.experiments",
    "arize.experimental.datasets.experiments.evaluators",
    "arize.experimental.datasets.experiments.evaluators.base",
    "arize.experimental.datasets.experiments.types",
):
    module = types.ModuleType(module_name)
    module.__path__ = []
    module.EvaluationResult = EvaluationResult
    module.CodeEvaluator = CodeEvaluator
    module.Evaluator = CodeEvaluator
    sys.modules[module_name] = module

DENIED_EVENTS = {
    "socket.__new__": "network access",
    "socket.connect": "network access",
    "socket.bind": "network access",
    "socket.getaddrinfo": "network access",
    "socket.gethostbyname": "network access",
    "subprocess.Popen": "starting processes",
    "os.system": "starting processes",
    "os.exec": "starting processes",
    "os.posix_spawn": "starting processes",
    "os.spawn": "starting processes",
    "os.fork": "starting processes",
    "os.forkpty": "starting processes",
    "os.kill": "signalling processes",
    "os.killpg": "signalling processes",
    "signal.pthread_kill": "signalling processes",
    "ctypes.dlopen": "loading native code",
    "ctypes.dlsym": "loading native code",
    "ctypes.cdata": "loading native code",
    "resource.setrlimit": "changing limits",
    "resource.prlimit": "changing limits",
    "os.remove": "changing files",
    "os.rename": "changing files",
    "os.rmdir": "changing files",
    "os.mkdir": "changing files",
    "os.chmod": "changing files",
    "os.truncate": "changing files",
    "os.symlink": "changing files",
    "os.link": "changing files",
}


def deny(event, args):
    what = DENIED_EVENTS.get(event)
    if what is not None:
        raise PermissionError(f"{what} is not allowed in an Argus evaluator ({event})")
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        if isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            writing = True
        if writing:
            raise PermissionError("writing files is not allowed in an Argus evaluator")
        if isinstance(path, (str, bytes)):
            text = os.fsdecode(path)
            # Another process's environment or memory (the worker's secrets) is not readable.
            if text.startswith("/proc/") and not text.startswith("/proc/self/"):
                raise PermissionError("reading /proc is not allowed in an Argus evaluator")


def evaluator_class(namespace):
    """The class the code defines with an evaluate method (the last such, if several)."""
    found = None
    for value in namespace.values():
        if (
            inspect.isclass(value)
            and value not in (CodeEvaluator, EvaluationResult)
            and value.__module__ == "argus_evaluator"
            and callable(getattr(value, "evaluate", None))
        ):
            found = value
    return found


def load(setup):
    memory = int(setup["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # A backstop behind the worker's wall clock per item: the worker replaces this process
    # before its items can have used this much.
    cpu = int(setup["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    namespace = {
        "__name__": "argus_evaluator",
        "EvaluationResult": EvaluationResult,
        "CodeEvaluator": CodeEvaluator,
    }
    source = (setup.get("imports") or "") + "\n" + setup["code"]
    compiled = compile(source, "<evaluator>", "exec")
    if setup.get("hooks"):
        sys.addaudithook(deny)
    exec(compiled, namespace)
    cls = evaluator_class(namespace)
    if cls is None:
        raise ValueError("the code defines no class with an evaluate method")
    instance = cls()
    for param in setup.get("static_params") or []:
        if isinstance(param, dict) and isinstance(param.get("name"), str):
            setattr(instance, param["name"], param.get("default_value"))
    return instance


def call(instance, values):
    signature = inspect.signature(instance.evaluate)
    accepts_any = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    named = set(signature.parameters)
    arguments = {k: v for k, v in values.items() if accepts_any or k in named}
    if accepts_any or "dataset_row" in named:
        arguments.setdefault("dataset_row", dict(values))
    return instance.evaluate(**arguments)


def verdict(result):
    if isinstance(result, bool):
        return {"label": str(result).lower(), "score": 1 if result else 0, "explanation": None}
    if isinstance(result, (int, float)):
        return {"label": None, "score": result, "explanation": None}
    if isinstance(result, str):
        return {"label": result, "score": None, "explanation": None}
    if isinstance(result, dict):
        get = result.get
    else:
        get = lambda name: getattr(result, name, None)  # noqa: E731
    return {"label": get("label"), "score": get("score"), "explanation": get("explanation")}


def describe(err):
    last = traceback.extract_tb(err.__traceback__)
    where = next((f"line {f.lineno}" for f in reversed(last) if f.filename == "<evaluator>"), None)
    text = f"{type(err).__name__}: {err}"
    return f"{text} ({where})" if where else text


def main():
    try:
        instance = load(json.loads(sys.stdin.readline()))
    except BaseException as err:  # noqa: BLE001 — any failure to load is the evaluator's
        send({"error": f"the evaluator's code does not load: {describe(err)}"})
        return
    send({"ready": True})
    for line in sys.stdin:
        try:
            send({"result": verdict(call(instance, json.loads(line)["values"]))})
        except BaseException as err:  # noqa: BLE001 — the item's error, not the host's
            send({"error": describe(err)})

main()
