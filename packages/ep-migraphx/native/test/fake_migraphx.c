/*
 * A stand-in libmigraphx_c.so for tests on machines without MIGraphX: it exports the C API entry
 * points the addon resolves, with toy semantics the tests can predict. Every "program" has one
 * parameter per shape given through onnx options (float, or int64 for names starting "i64_"), and
 * output i is parameter i times a factor that records how it was built: 2 plain, 3 after
 * quantize_fp16, 5 after quantize_bf16, 10 + (calibration sets) after quantize_int8. An ONNX buffer
 * starting with "FAIL" fails to parse. Build with -DOLD_LAYOUT for ROCm 6.4's datatype numbering.
 *
 * It also stands in for the HIP runtime MIGraphX loads: hipGetDeviceCount reports FAKE_HIP_DEVICES
 * (default 2) GPUs, and hipSetDevice sets a per-thread current device (0 on a new thread), as HIP does.
 * A program built for the 'gpu' target lives on the device current when it was compiled or loaded:
 * its outputs add 100 x that device, and running it from a thread whose current device is another
 * fails, as touching another GPU's memory would.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OLD_LAYOUT
static const size_t SIZES[] = {0, 1, 2, 4, 8, 1, 1, 2, 2, 4, 8, 4, 8, 1, 1, 1, 2, 1};
enum { FLOAT_T = 3, INT64_T = 10, NTYPES = 18 };
#else
static const size_t SIZES[] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 2, 4, 8, 4, 8, 1, 1, 1, 2, 1};
enum { FLOAT_T = 4, INT64_T = 11, NTYPES = 19 };
#endif
enum { MAXP = 8 };

typedef struct { int type; size_t n; size_t lens[8]; } shape;
typedef struct { shape s; char* buf; int owns; } argument;
typedef struct { int count; char names[MAXP][64]; shape shapes[MAXP]; size_t default_dim; } onnx_options;
typedef struct { char magic[8]; int count; char names[MAXP][64]; shape shapes[MAXP]; int factor; int compiled; int gpu; int device; } program;
typedef struct { int count; char names[MAXP][64]; const argument* args[MAXP]; } parameters;
typedef struct { int count; argument* items[MAXP]; } arguments;
typedef struct { int count; shape items[MAXP]; } shapes;
typedef struct { program* p; } parameter_shapes;
typedef struct { int sets; } int8_options;
typedef struct { int unused; } plain;
typedef struct { int gpu; } target;

static _Thread_local int current_device = 0;
static int device_count(void) { const char* n = getenv("FAKE_HIP_DEVICES"); return n ? atoi(n) : 2; }
int hipGetDeviceCount(int* out) { *out = device_count(); return 0; }
int hipSetDevice(int device) { if (device < 0 || device >= device_count()) return 101; current_device = device; return 0; }

static size_t elements(const shape* s) { size_t e = 1; for (size_t i = 0; i < s->n; i++) e *= s->lens[i]; return e; }

static const char* ops[] = {"Add", "MatMul", "Neg", "Relu"};
int migraphx_get_onnx_operators_size(size_t* out) { *out = 4; return 0; }
int migraphx_get_onnx_operator_name_at_index(char** out, size_t i) { if (i >= 4) return 1; *out = (char*)ops[i]; return 0; }

int migraphx_shape_create(shape** out, int type, size_t* lens, size_t n) {
  if (type < 0 || type >= NTYPES || n > 8) return 1;
  shape* s = calloc(1, sizeof(shape)); s->type = type; s->n = n; memcpy(s->lens, lens, n * sizeof(size_t)); *out = s; return 0;
}
int migraphx_shape_destroy(shape* s) { free(s); return 0; }
int migraphx_shape_lengths(const size_t** out, size_t* n, const shape* s) { *out = s->lens; *n = s->n; return 0; }
int migraphx_shape_type(int* out, const shape* s) { *out = s->type; return 0; }
int migraphx_shape_bytes(size_t* out, const shape* s) { *out = elements(s) * SIZES[s->type]; return 0; }

int migraphx_argument_create(argument** out, const shape* s, void* buf) { argument* a = calloc(1, sizeof(argument)); a->s = *s; a->buf = buf; *out = a; return 0; }
int migraphx_argument_destroy(argument* a) { if (a->owns) free(a->buf); free(a); return 0; }
int migraphx_argument_shape(const shape** out, const argument* a) { *out = &a->s; return 0; }
int migraphx_argument_buffer(char** out, const argument* a) { *out = a->buf; return 0; }

int migraphx_target_create(target** out, const char* name) {
  if (strcmp(name, "ref") && strcmp(name, "gpu")) return 3;
  *out = calloc(1, sizeof(target)); (*out)->gpu = strcmp(name, "gpu") == 0; return 0;
}
int migraphx_target_destroy(target* t) { free(t); return 0; }

int migraphx_onnx_options_create(onnx_options** out) { *out = calloc(1, sizeof(onnx_options)); return 0; }
int migraphx_onnx_options_destroy(onnx_options* o) { free(o); return 0; }
int migraphx_onnx_options_set_input_parameter_shape(onnx_options* o, const char* name, size_t* dims, size_t n) {
  if (o->count >= MAXP || n > 8) return 1;
  strncpy(o->names[o->count], name, 63);
  shape* s = &o->shapes[o->count++];
  s->type = strncmp(name, "i64_", 4) == 0 ? INT64_T : FLOAT_T; s->n = n; memcpy(s->lens, dims, n * sizeof(size_t));
  return 0;
}
int migraphx_onnx_options_set_default_dim_value(onnx_options* o, size_t v) { o->default_dim = v; return 0; }

int migraphx_parse_onnx_buffer(program** out, const void* data, size_t size, onnx_options* o) {
  if (size >= 4 && memcmp(data, "FAIL", 4) == 0) return 1;
  program* p = calloc(1, sizeof(program));
  memcpy(p->magic, "FAKEPRG", 8);
  p->count = o->count; memcpy(p->names, o->names, sizeof(p->names)); memcpy(p->shapes, o->shapes, sizeof(p->shapes)); p->factor = 2;
  *out = p; return 0;
}
int migraphx_program_destroy(program* p) { free(p); return 0; }
int migraphx_quantize_fp16(program* p) { p->factor = 3; return 0; }
int migraphx_quantize_bf16(program* p) { p->factor = 5; return 0; }
int migraphx_quantize_int8_options_create(int8_options** out) { *out = calloc(1, sizeof(int8_options)); return 0; }
int migraphx_quantize_int8_options_destroy(int8_options* o) { free(o); return 0; }
int migraphx_quantize_int8_options_add_calibration_data(int8_options* o, parameters* d) { (void)d; o->sets++; return 0; }
int migraphx_quantize_int8(program* p, target* t, int8_options* o) { (void)t; p->factor = 10 + o->sets; return 0; }

int migraphx_compile_options_create(plain** out) { *out = calloc(1, sizeof(plain)); return 0; }
int migraphx_compile_options_destroy(plain* o) { free(o); return 0; }
int migraphx_compile_options_set_offload_copy(plain* o, bool v) { (void)o; (void)v; return 0; }
int migraphx_compile_options_set_fast_math(plain* o, bool v) { (void)o; (void)v; return 0; }
int migraphx_compile_options_set_exhaustive_tune_flag(plain* o, bool v) { (void)o; (void)v; return 0; }
int migraphx_program_compile(program* p, target* t, plain* o) { (void)o; p->compiled = 1; p->gpu = t->gpu; p->device = t->gpu ? current_device : 0; return 0; }

int migraphx_program_get_parameter_shapes(parameter_shapes** out, program* p) { parameter_shapes* s = malloc(sizeof *s); s->p = p; *out = s; return 0; }
int migraphx_program_parameter_shapes_destroy(parameter_shapes* s) { free(s); return 0; }
int migraphx_program_parameter_shapes_size(size_t* out, parameter_shapes* s) { *out = (size_t)s->p->count; return 0; }
int migraphx_program_parameter_shapes_names(const char** out, parameter_shapes* s) { for (int i = 0; i < s->p->count; i++) out[i] = s->p->names[i]; return 0; }
int migraphx_program_parameter_shapes_get(const shape** out, parameter_shapes* s, const char* name) {
  for (int i = 0; i < s->p->count; i++) if (!strcmp(s->p->names[i], name)) { *out = &s->p->shapes[i]; return 0; }
  return 1;
}

int migraphx_program_parameters_create(parameters** out) { *out = calloc(1, sizeof(parameters)); return 0; }
int migraphx_program_parameters_destroy(parameters* p) { free(p); return 0; }
int migraphx_program_parameters_add(parameters* p, const char* name, const argument* a) {
  if (p->count >= MAXP) return 1;
  strncpy(p->names[p->count], name, 63); p->args[p->count++] = a; return 0;
}

int migraphx_arguments_destroy(arguments* a) { for (int i = 0; i < a->count; i++) migraphx_argument_destroy(a->items[i]); free(a); return 0; }
int migraphx_arguments_size(size_t* out, arguments* a) { *out = (size_t)a->count; return 0; }
int migraphx_arguments_get(const argument** out, arguments* a, size_t i) { if ((int)i >= a->count) return 1; *out = a->items[i]; return 0; }

int migraphx_program_get_output_shapes(shapes** out, program* p) { shapes* s = calloc(1, sizeof(shapes)); s->count = p->count; memcpy(s->items, p->shapes, sizeof(s->items)); *out = s; return 0; }
int migraphx_shapes_destroy(shapes* s) { free(s); return 0; }
int migraphx_shapes_size(size_t* out, shapes* s) { *out = (size_t)s->count; return 0; }
int migraphx_shapes_get(const shape** out, shapes* s, size_t i) { if ((int)i >= s->count) return 1; *out = &s->items[i]; return 0; }

int migraphx_program_run(arguments** out, program* p, parameters* params) {
  if (!p->compiled || (p->gpu && p->device != current_device)) return 4;
  arguments* result = calloc(1, sizeof(arguments));
  for (int i = 0; i < p->count; i++) {
    const argument* in = NULL;
    for (int j = 0; j < params->count; j++) if (!strcmp(params->names[j], p->names[i])) in = params->args[j];
    const shape* want = &p->shapes[i];
    if (!in || in->s.type != want->type || in->s.n != want->n || memcmp(in->s.lens, want->lens, want->n * sizeof(size_t))) { migraphx_arguments_destroy(result); return 1; }
    argument* o = calloc(1, sizeof(argument));
    o->s = *want; o->owns = 1; o->buf = malloc(elements(want) * SIZES[want->type] + 1);
    for (size_t k = 0; k < elements(want); k++) {
      if (want->type == INT64_T) ((long long*)o->buf)[k] = ((long long*)in->buf)[k] * p->factor + 100 * p->device;
      else ((float*)o->buf)[k] = ((float*)in->buf)[k] * (float)p->factor + 100.0f * (float)p->device;
    }
    result->items[result->count++] = o;
  }
  *out = result; return 0;
}

int migraphx_file_options_create(plain** out) { *out = calloc(1, sizeof(plain)); return 0; }
int migraphx_file_options_destroy(plain* o) { free(o); return 0; }
int migraphx_file_options_set_file_format(plain* o, const char* f) { (void)o; return strcmp(f, "msgpack") && strcmp(f, "json") ? 1 : 0; }
int migraphx_save(program* p, const char* name, plain* o) {
  (void)o; FILE* f = fopen(name, "wb"); if (!f) return 4;
  size_t ok = fwrite(p, sizeof *p, 1, f); fclose(f); return ok == 1 ? 0 : 4;
}
int migraphx_load(program** out, const char* name, plain* o) {
  (void)o; FILE* f = fopen(name, "rb"); if (!f) return 4;
  program* p = calloc(1, sizeof(program)); size_t ok = fread(p, sizeof *p, 1, f); fclose(f);
  if (ok != 1 || memcmp(p->magic, "FAKEPRG", 8)) { free(p); return 4; }
  if (p->gpu) p->device = current_device;
  *out = p; return 0;
}
