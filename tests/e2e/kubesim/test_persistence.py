"""--data keeps state across restarts: objects, custom resources of a CRD (whose
kind is served again at once), and a resourceVersion counter that only moves forward."""
import os
import tempfile

from kubesim import KubeSim

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""
GADGET = """
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g1}
spec: {size: 3}
"""


def main():
    d = tempfile.mkdtemp(prefix="kubesim-data-")
    data = os.path.join(d, "state.json")
    with KubeSim(data=data) as sim:
        sim.kubectl("apply", "-f", "-", input=CRD)
        sim.kubectl("apply", "-f", "-", input=GADGET)
        sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1}\ndata: {k: v}\n")
        uid = sim.kubectl("get", "cm", "c1", "-o", "jsonpath={.metadata.uid}").stdout
        rv_before = int(sim.admin("state")["resourceVersion"])
        assert sim.stop() == 0
    assert os.path.exists(data)
    with KubeSim(data=data) as sim:
        assert sim.kubectl("get", "cm", "c1", "-o", "jsonpath={.metadata.uid}").stdout == uid
        assert sim.kubectl("get", "gd", "g1", "-o", "jsonpath={.spec.size}").stdout == "3"
        rv_after = int(sim.admin("state")["resourceVersion"])
        assert rv_after >= rv_before, (rv_before, rv_after)
        sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c2}\n")
        rv_c2 = int(sim.kubectl("get", "cm", "c2", "-o", "jsonpath={.metadata.resourceVersion}").stdout)
        assert rv_c2 > rv_before
    print("persistence: ok")


if __name__ == "__main__":
    main()
