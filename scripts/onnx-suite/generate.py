"""Writes the ONNX backend node suite of the installed onnx package as test directories.

Newer onnx wheels no longer ship the suite's files, only the generators that make them
(`onnx.backend.test.case.node.collect_testcases`). This writes each case the way the
libonnx-testdata package lays out the 1.12 suite, so one runner reads both:
OUT/node/<case>/model.onnx and OUT/node/<case>/test_data_set_<i>/{input,output}_<j>.pb.

Usage: python generate.py OUT   (run with the venv's python that holds the pinned onnx)
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node as node_cases


def serialize_value(value, value_info):
    """One input or output as the protobuf the runner reads, chosen by the graph's declared type."""
    kind = value_info.type.WhichOneof("value")
    name = value_info.name
    if kind == "sequence_type":
        return numpy_helper.from_list(value, name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, name).SerializeToString()
    if kind == "map_type":
        return numpy_helper.from_dict(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def write_case(case, root):
    case_dir = os.path.join(root, case.kind, case.name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets or []):
        set_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(set_dir)
        for prefix, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                with open(os.path.join(set_dir, f"{prefix}_{j}.pb"), "wb") as f:
                    f.write(serialize_value(value, infos[j]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py OUT")
    root = sys.argv[1]
    cases = node_cases.collect_testcases()
    for case in cases:
        write_case(case, root)
    with open(os.path.join(root, "VERSION"), "w") as f:
        f.write(f"onnx {onnx.__version__}, IR {onnx.IR_VERSION}, opset {onnx.defs.onnx_opset_version()}, {len(cases)} node cases\n")
    print(f"wrote {len(cases)} node cases from onnx {onnx.__version__} to {root}")


if __name__ == "__main__":
    main()
