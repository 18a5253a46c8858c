"""Converts a model to a newer opset with onnx's version converter and saves it at that onnx's IR version.

Usage: python convert-opset.py IN.onnx OUT.onnx OPSET   (the venv's python with the pinned onnx)
Large models keep their weights inline (the zoo's largest is ~500 MB, under protobuf's 2 GB limit).
"""
import sys

import onnx
from onnx import version_converter


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: convert-opset.py IN.onnx OUT.onnx OPSET")
    src, dst, opset = sys.argv[1], sys.argv[2], int(sys.argv[3])
    model = onnx.load(src)
    converted = version_converter.convert_version(model, opset)
    converted.ir_version = onnx.IR_VERSION
    onnx.checker.check_model(converted)
    onnx.save(converted, dst)
    print(f"{src}: opset {model.opset_import[0].version} -> {opset}, IR {converted.ir_version}")


if __name__ == "__main__":
    main()
