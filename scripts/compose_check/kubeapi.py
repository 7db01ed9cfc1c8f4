"""The Kubernetes API server of `make compose-check`.

The project's wire-protocol test server (real list/watch, bookmarks, bearer
token) serving the demo GPU cluster on 127.0.0.1:6443; the mirror shares this
container's network (docker-compose.check.yml). A pod's annotation changes
every two seconds, so the mirror has a stream of watch events to pass on to
websocket clients. Runs from the source tree mounted at /src.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import scheduler_engine
from scheduler_engine.documents import read_objects
from tests.support.kubeserver import KubeServer

PORT = 6443
TOKEN = "compose-check-token"  # kube/config beside this file carries it
TICK_SECONDS = 2.0
DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"


def _tick_pod(n: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "compose-check-tick",
            "namespace": "default",
            "annotations": {"schedlab.io/compose-check-tick": str(n)},
        },
        "spec": {"containers": [{"name": "c", "image": "x"}], "nodeName": ""},
        "status": {"phase": "Pending"},
    }


def main() -> None:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    kube = KubeServer(port=PORT, token=TOKEN)
    objects = read_objects(DEMO)
    kube.load(objects)
    kube.start()
    print(f"kubeapi: {len(objects)} objects of {DEMO.name} on {kube.url}", flush=True)
    n = 0
    while not stop.wait(TICK_SECONDS):
        kube.apply(_tick_pod(n))
        n += 1
    kube.stop()


if __name__ == "__main__":
    main()
