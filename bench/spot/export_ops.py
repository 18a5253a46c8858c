# Writes one-op ONNX models at realistic sizes (every op class the CPU EP has kernels for that real models
# use: normalizations, gathers/scatters, sorting, pooling, resampling, detection ops, casts), for
# bench/spot/run.mjs. Each goes to OUT/<name>/ as model.onnx and inputs.npz.
# Usage: /usr/bin/python3 bench/spot/export_ops.py OUT
import onnx, numpy as np, os, sys
from onnx import helper as h, TensorProto as T, numpy_helper as nh
out = sys.argv[1]
rng = np.random.default_rng(0)
def model(name, node_list, inputs, outputs, inits=(), opset=17):
    d = os.path.join(out, name); os.makedirs(d, exist_ok=True)
    g = h.make_graph(node_list, name, [h.make_tensor_value_info(n, dt, s) for n, dt, s, _ in inputs], [h.make_tensor_value_info(n, dt, None) for n, dt in outputs], [nh.from_array(v, k) for k, v in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)]); m.ir_version = 8
    onnx.save(m, os.path.join(d, 'model.onnx'))
    np.savez(os.path.join(d, 'inputs.npz'), **{n: v for n, _, _, v in inputs})
F = T.FLOAT; I64 = T.INT64
x4 = rng.standard_normal((8, 64, 56, 56)).astype(np.float32)
x2 = rng.standard_normal((256, 4096)).astype(np.float32)
def un(op, x=x4, **a): return ([h.make_node(op, ['x'], ['y'], **a)], [('x', F, list(x.shape), x)], [('y', F)])
cases = {
  'softmax_axis1': un('Softmax', axis=1),
  'logsoftmax_last': un('LogSoftmax', x=x2, axis=-1),
  'hardmax': un('Hardmax', x=x2, axis=-1),
  'reduce_max_hw': ([h.make_node('ReduceMax', ['x'], ['y'], axes=[2, 3])], [('x', F, list(x4.shape), x4)], [('y', F)]),
  'reduce_l2_c': ([h.make_node('ReduceL2', ['x'], ['y'], axes=[1])], [('x', F, list(x4.shape), x4)], [('y', F)]),
  'cumsum_axis1': ([h.make_node('CumSum', ['x', 'ax'], ['y'])], [('x', F, list(x2.shape), x2)], [('y', F)], [('ax', np.array(1, np.int64))]),
  'instancenorm': ([h.make_node('InstanceNormalization', ['x', 's', 'b'], ['y'])], [('x', F, list(x4.shape), x4)], [('y', F)], [('s', np.ones(64, np.float32)), ('b', np.zeros(64, np.float32))]),
  'lpnorm': un('LpNormalization', x=x2, axis=-1, p=2),
  'mvn': un('MeanVarianceNormalization'),
  'lrn': un('LRN', size=5),
  'depth_to_space': un('DepthToSpace', blocksize=2, mode='CRD'),
  'space_to_depth': un('SpaceToDepth', blocksize=2),
  'pad_reflect': ([h.make_node('Pad', ['x', 'p'], ['y'], mode='reflect')], [('x', F, list(x4.shape), x4)], [('y', F)], [('p', np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64))]),
  'pad_edge': ([h.make_node('Pad', ['x', 'p'], ['y'], mode='edge')], [('x', F, list(x4.shape), x4)], [('y', F)], [('p', np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))]),
  'tile': ([h.make_node('Tile', ['x', 'r'], ['y'])], [('x', F, list(x2.shape), x2)], [('y', F)], [('r', np.array([2, 2], np.int64))]),
  'gather_axis1': ([h.make_node('Gather', ['x', 'i'], ['y'], axis=1)], [('x', F, list(x2.shape), x2)], [('y', F)], [('i', rng.integers(0, 4096, 1000).astype(np.int64))]),
  'gathernd': ([h.make_node('GatherND', ['x', 'i'], ['y'])], [('x', F, list(x2.shape), x2)], [('y', F)], [('i', rng.integers(0, 256, (5000, 1)).astype(np.int64))]),
  'scatternd': ([h.make_node('ScatterND', ['x', 'i', 'u'], ['y'])], [('x', F, list(x2.shape), x2)], [('y', F)], [('i', rng.permutation(256)[:100].reshape(100, 1).astype(np.int64)), ('u', np.ones((100, 4096), np.float32))]),
  'scatter_elements': ([h.make_node('ScatterElements', ['x', 'i', 'u'], ['y'], axis=1)], [('x', F, list(x2.shape), x2)], [('y', F)], [('i', np.tile(rng.permutation(4096)[:512], (256, 1)).astype(np.int64)), ('u', np.ones((256, 512), np.float32))]),
  'gather_elements': ([h.make_node('GatherElements', ['x', 'i'], ['y'], axis=1)], [('x', F, list(x2.shape), x2)], [('y', F)], [('i', rng.integers(0, 4096, (256, 4096)).astype(np.int64))]),
  'onehot': ([h.make_node('OneHot', ['i', 'd', 'v'], ['y'], axis=-1)], [('i', I64, [4096], rng.integers(0, 1000, 4096).astype(np.int64))], [('y', F)], [('d', np.array(1000, np.int64)), ('v', np.array([0, 1], np.float32))]),
  'trilu': un('Trilu', x=x2, upper=0),
  'mod_fmod': ([h.make_node('Mod', ['x', 'c'], ['y'], fmod=1)], [('x', F, list(x2.shape), x2)], [('y', F)], [('c', np.array(0.7, np.float32))]),
  'cast_f16': ([h.make_node('Cast', ['x'], ['y'], to=T.FLOAT16)], [('x', F, list(x4.shape), x4)], [('y', T.FLOAT16)]),
  'cast_i64': ([h.make_node('Cast', ['x'], ['y'], to=I64)], [('x', F, list(x2.shape), x2)], [('y', I64)]),
  'resize_cubic': ([h.make_node('Resize', ['x', '', 's'], ['y'], mode='cubic')], [('x', F, [1, 32, 64, 64], rng.standard_normal((1, 32, 64, 64)).astype(np.float32))], [('y', F)], [('s', np.array([1, 1, 2, 2], np.float32))]),
  'maxpool_3x3s1': un('MaxPool', kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
  'globalmaxpool': un('GlobalMaxPool'),
  'nonzero': ([h.make_node('Greater', ['x', 'z'], ['b']), h.make_node('NonZero', ['b'], ['y'])], [('x', F, list(x2.shape), x2)], [('y', I64)], [('z', np.array(1.5, np.float32))]),
  'where_bcast': ([h.make_node('Greater', ['x', 'z'], ['b']), h.make_node('Where', ['b', 'x', 'z2'], ['y'])], [('x', F, list(x4.shape), x4)], [('y', F)], [('z', np.array(0, np.float32)), ('z2', rng.standard_normal((64, 1, 56)).astype(np.float32))]),
  'expand': ([h.make_node('Expand', ['x', 's'], ['y'])], [('x', F, [64, 1, 56], rng.standard_normal((64, 1, 56)).astype(np.float32))], [('y', F)], [('s', np.array([8, 64, 56, 56], np.int64))]),
  'reverse_seq': ([h.make_node('ReverseSequence', ['x', 'l'], ['y'], batch_axis=1, time_axis=0)], [('x', F, [200, 64, 256], rng.standard_normal((200, 64, 256)).astype(np.float32))], [('y', F)], [('l', np.full(64, 150, np.int64))]),
  'unique': ([h.make_node('Unique', ['x'], ['y', 'i', 'inv', 'c'], sorted=1)], [('x', I64, [100000], rng.integers(0, 1000, 100000).astype(np.int64))], [('y', I64)]),
  'conv_transpose_2x': ([h.make_node('ConvTranspose', ['x', 'w'], ['y'], strides=[2, 2], kernel_shape=[4, 4], pads=[1, 1, 1, 1])], [('x', F, [1, 64, 64, 64], rng.standard_normal((1, 64, 64, 64)).astype(np.float32))], [('y', F)], [('w', (rng.standard_normal((64, 32, 4, 4)) * 0.1).astype(np.float32))]),
  'conv3d': ([h.make_node('Conv', ['x', 'w'], ['y'], pads=[1, 1, 1, 1, 1, 1])], [('x', F, [1, 16, 16, 56, 56], rng.standard_normal((1, 16, 16, 56, 56)).astype(np.float32))], [('y', F)], [('w', (rng.standard_normal((32, 16, 3, 3, 3)) * 0.1).astype(np.float32))]),
  'maxpool3d': ([h.make_node('MaxPool', ['x'], ['y'], kernel_shape=[2, 2, 2], strides=[2, 2, 2])], [('x', F, [1, 32, 16, 56, 56], rng.standard_normal((1, 32, 16, 56, 56)).astype(np.float32))], [('y', F)]),
  'gridsample': ([h.make_node('GridSample', ['x', 'g'], ['y'])], [('x', F, [1, 32, 64, 64], rng.standard_normal((1, 32, 64, 64)).astype(np.float32))], [('y', F)], [('g', rng.uniform(-1, 1, (1, 64, 64, 2)).astype(np.float32))]),
  'dft': ([h.make_node('DFT', ['x', ''], ['y'], axis=1)], [('x', F, [16, 512, 1], rng.standard_normal((16, 512, 1)).astype(np.float32))], [('y', F)]),
  'roialign': ([h.make_node('RoiAlign', ['x', 'r', 'b'], ['y'], output_height=7, output_width=7, sampling_ratio=2)], [('x', F, [1, 64, 50, 50], rng.standard_normal((1, 64, 50, 50)).astype(np.float32))], [('y', F)], [('r', np.sort(rng.uniform(0, 49, (100, 4)).astype(np.float32).reshape(100, 2, 2), axis=1).transpose(0, 2, 1).reshape(100, 4)), ('b', np.zeros(100, np.int64))]),
  'nms': ([h.make_node('NonMaxSuppression', ['bx', 'sc', 'm', 'iou', 'st'], ['y'])], [('bx', F, [1, 2000, 4], np.sort(rng.uniform(0, 100, (1, 2000, 2, 2)).astype(np.float32), axis=2).transpose(0, 1, 3, 2).reshape(1, 2000, 4))], [('y', I64)], [('sc', rng.uniform(0, 1, (1, 3, 2000)).astype(np.float32)), ('m', np.array([100], np.int64)), ('iou', np.array([0.5], np.float32)), ('st', np.array([0.1], np.float32))]),
}
for name, spec in cases.items():
    nodes, ins, outs = spec[:3]; inits = spec[3] if len(spec) > 3 else ()
    model(name, nodes, ins, outs, inits)
print(len(cases), 'models')
