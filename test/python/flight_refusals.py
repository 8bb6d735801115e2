"""Flight calls the server must refuse, made with pyarrow's Flight client as the SDK makes them
(its `public` request messages as JSON, the key in auth-token-bin). argv: the Flight location
(grpc://host:port), then a JSON object of keys and ids (see the test). Prints one JSON line:
per case, the exception's class and message (or "ok").

With "cut <name> <batches> <kill-after>" instead, it starts a createDataset upload of
`batches` batches and kills its own process after `kill-after` of them were written: a client
gone mid-stream.
"""
import json
import os
import signal
import sys

import pyarrow as pa
from google.protobuf import json_format
from pyarrow import flight

from arize._generated.protocol.flight import flight_pb2

location = sys.argv[1]


def options(key):
    headers = [] if key is None else [(b"auth-token-bin", key.encode())]
    return flight.FlightCallOptions(headers=headers + [(b"origin", b"arize-logging-client")])


def command(message) -> bytes:
    return json_format.MessageToJson(message).encode()


def create_request(space_id, name):
    return flight_pb2.DoPutRequest(create_dataset=flight_pb2.CreateDatasetRequest(
        space_id=space_id, dataset_name=name, dataset_type=flight_pb2.GENERATIVE))


def put(key, cmd: bytes, table: pa.Table, chunk=None):
    client = flight.FlightClient(location)
    writer, reader = client.do_put(flight.FlightDescriptor.for_command(cmd), table.schema,
                                   options=options(key))
    with writer:
        for batch in table.to_batches(max_chunksize=chunk):
            writer.write_batch(batch)
        writer.done_writing()
        answer = reader.read()
    return answer


def get(key, request):
    client = flight.FlightClient(location)
    return client.do_get(flight.Ticket(command(request)), options=options(key)).read_all()


def rows(n, width=8):
    return pa.table({"question": [f"q{i}" + "x" * width for i in range(n)],
                     "id": [f"id-{i}" for i in range(n)],
                     "created_at": [0] * n, "updated_at": [0] * n})


if sys.argv[2] == "cut":
    _, _, _, key, space_id, name, batches, kill_after = sys.argv
    client = flight.FlightClient(location)
    table = rows(int(batches) * 1000)
    writer, _ = client.do_put(
        flight.FlightDescriptor.for_command(command(create_request(space_id, name))),
        table.schema, options=options(key))
    for i, batch in enumerate(table.to_batches(max_chunksize=1000)):
        if i == int(kill_after):
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        writer.write_batch(batch)
    writer.done_writing()
    writer.close()
    print(json.dumps({"finished": True}))
    sys.exit(0)

ctx = json.loads(sys.argv[2])
results = {}


def case(name, fn):
    try:
        fn()
        results[name] = {"type": "ok", "message": ""}
    except Exception as err:  # noqa: BLE001
        results[name] = {"type": type(err).__name__, "message": str(err)[:1000]}


space, key = ctx["space_id"], ctx["key"]
case("wrong key", lambda: put("ak-argus-wrong", command(create_request(space, ctx["names"]["wrong"])), rows(3)))
case("no key", lambda: put(None, command(create_request(space, ctx["names"]["nokey"])), rows(3)))
case("other space's key reads", lambda: get(ctx["other_key"], flight_pb2.DoGetRequest(
    get_dataset=flight_pb2.GetDatasetRequest(space_id=ctx["private_space_id"],
                                             dataset_id=ctx["private_dataset_id"]))))
case("other space's key writes", lambda: put(ctx["other_key"], command(
    create_request(ctx["private_space_id"], ctx["names"]["other"])), rows(3)))
case("read-only key writes", lambda: put(ctx["read_only_key"], command(
    create_request(ctx["other_space_id"], ctx["names"]["readonly"])), rows(3)))
case("unknown dataset", lambda: get(key, flight_pb2.DoGetRequest(
    get_dataset=flight_pb2.GetDatasetRequest(space_id=space, dataset_id=ctx["unknown_dataset_id"]))))
case("malformed descriptor", lambda: put(key, b"{not json", rows(3)))
case("descriptor of no request", lambda: put(key, b'{"somethingElse": {}}', rows(3)))
case("unsupported column type", lambda: put(key, command(create_request(space, ctx["names"]["binary"])),
                                            pa.table({"question": ["a"], "blob": [b"\x00\x01"]})))
# One batch over the server's message limit (the test's stack sets it low).
case("batch over the size limit", lambda: put(key, command(create_request(space, ctx["names"]["big"])),
                                              rows(ctx["big_rows"], width=1000), chunk=ctx["big_rows"]))
case("batch under the size limit", lambda: put(key, command(create_request(space, ctx["names"]["fits"])),
                                               rows(ctx["fits_rows"], width=1000), chunk=ctx["fits_rows"]))
case("unknown action", lambda: list(flight.FlightClient(location).do_action(
    flight.Action("delete_dataset", b"{}"), options=options(key))))
print(json.dumps(results))
