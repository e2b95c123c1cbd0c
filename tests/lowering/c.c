/* Every C API row (ffi.toml, c.toml) called the way C host code calls it, and the shapes
 * the C frontend must read: error-check macros around calls, both sides of `#if`, an
 * unknown macro, a piece tree-sitter cannot parse. */
#include <CL/cl.h>
#include "missing_header.h"

#define N 256
#define OCL_CHECK(err, call) do { call; if (err != CL_SUCCESS) exit(1); } while (0)

static const char *src = "__kernel void k(__global float* a) { a[0] = 1.0f; }";

void api(cl_context ctx, cl_device_id dev, cl_command_queue q, cl_command_queue q2, float *host)
{
    cl_int err;
    cl_event ev, evs[2];
    cl_command_queue oq = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    cl_command_queue pq = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    cl_program pb = clCreateProgramWithBinary(ctx, 1, &dev, NULL, NULL, NULL, &err);
    cl_kernel k = clCreateKernel(p, "k", &err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, host, &err);
    cl_mem b = clCreateBufferWithProperties(ctx, NULL, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    cl_event user = clCreateUserEvent(ctx, &err);

    err = clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N * 4, host, 0, NULL, &ev);
    err = clEnqueueReadBuffer(q, a, CL_TRUE, 0, N * 4, host, 1, &ev, NULL);
    err = clEnqueueFillBuffer(q, b, &pattern, 4, 0, N * 4, 0, NULL, &evs[0]);
    err = clEnqueueCopyBuffer(q2, a, b, 0, 0, N * 4, 2, evs, NULL);
    err = clEnqueueMigrateMemObjects(q2, 1, &a, 0, 1, &user, &ev);
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, NULL);
    err = clEnqueueTask(q, k, 0, NULL, NULL);
    err = clEnqueueMarkerWithWaitList(q, 1, &ev, &evs[1]);
    err = clEnqueueBarrierWithWaitList(q, 0, NULL, NULL);
    void *m = clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ, 0, N * 4, 0, NULL, NULL, &err);
    err = clEnqueueUnmapMemObject(q, b, m, 0, NULL, NULL);
    err = clEnqueueWriteBufferRect(q, a, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL);
    err = clEnqueueReadBufferRect(q, a, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL);
    err = clEnqueueCopyBufferRect(q, a, b, o, o, r, 0, 0, 0, 0, 0, NULL, NULL);
    err = clEnqueueMarker(q, &ev);
    err = clSetKernelArg(k, 0, sizeof(cl_mem), &a);
    err = clSetUserEventStatus(user, CL_COMPLETE);
    cl_ulong end;
    cl_int status;
    err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    err = clRetainEvent(ev);
    err = clWaitForEvents(1, &ev);
    err = clFlush(q);
    err = clFinish(q2);
    err = clReleaseEvent(ev);
}

void shapes(cl_command_queue q, cl_kernel k, cl_mem a, float *host)
{
    cl_int err;
    /* The macro's arguments are code: the enqueue inside is read. */
    OCL_CHECK(err, err = clEnqueueWriteBuffer(q, a, CL_TRUE, 0, N * 4, host, 0, NULL, NULL));
    CHECK_CL_ERROR(clSetKernelArg(k, 0, sizeof(cl_mem), &a));
    err = clFinish(q);
    test_error(err, "clFinish failed");
#if defined(USE_EVENTS)
    cl_event done;
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, &done);
    clWaitForEvents(1, &done);
#else
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, NULL);
    clFinish(q);
#endif
    /* An unknown macro that takes the buffer: what it does is not known. */
    UNKNOWN_MACRO(a);
    /* Not C: the names in it are forgotten, the lines around it still read. */
    host = @@ a ## $$;
    err = clEnqueueReadBuffer(q, a, CL_TRUE, 0, N * 4, host, 0, NULL, NULL);
}

/* tree-sitter reads this macro call as a type (every argument could be a parameter
 * declaration); it is a call all the same. */
void declaration_shaped(cl_command_queue q, cl_mem a, cl_mem b, size_t off, cl_uint nwait,
                        const cl_event *wait, cl_event *ev)
{
    CHECK_CL_ERROR(clEnqueueCopyBuffer(q, a, b, off * sizeof(float), off * sizeof(float), sizeof(float),
                                       nwait, wait, ev));
}

void loops(cl_command_queue q, cl_kernel k, cl_event *ev, cl_uint n)
{
    /* Each loop's test is its first statement: the body where it holds, else the end. */
    for (cl_uint d = n - 1; d-- > 0; )
        clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, &ev[d]);
    while (n > 0)
        clReleaseEvent(ev[--n]);
}

cl_int chain(cl_command_queue q, cl_kernel k, cl_mem a, cl_event *ev)
{
    /* A run of tests of one status, then the status returned: each test in the one
       before it, and a failure leaves at once, as an error. */
    cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof(cl_mem), &a);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, ev);
    return err;
}

/* `sizeof` of a file-scope scalar is its declared type's size. */
static double g_alpha;

void global_sizes(cl_kernel k)
{
    clSetKernelArg(k, 1, sizeof(g_alpha), &g_alpha);
}

/* A callback on an event only reads it: the event is released after. */
static void CL_CALLBACK on_done(cl_event e, cl_int status, void *data) { (void)e; (void)status; (void)data; }

void callbacks(cl_command_queue q, cl_mem m, float *host)
{
    cl_event rd;
    clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, host, 0, NULL, &rd);
    clSetEventCallback(rd, CL_COMPLETE, on_done, NULL);
    clReleaseEvent(rd);
}

/* `if (mapped)` of a pointer a map sets: a test the analysis can decide (null before the map). */
void unmap_if_mapped(cl_command_queue q, cl_mem m)
{
    cl_int err;
    float *mapped = NULL;
    mapped = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, N * 4, 0, NULL, NULL, &err);
    if (mapped)
        clEnqueueUnmapMemObject(q, m, mapped, 0, NULL, NULL);
}

/* A build and the queries take their handles by value; what a query writes through its
 * out-parameters is forgotten. */
void queried(cl_context ctx, cl_command_queue q, cl_mem m, cl_program p, cl_device_id dev, cl_kernel k, cl_event ev)
{
    size_t wg = 0;
    cl_int status = 0;
    clBuildProgram(p, 1, &dev, "", NULL, NULL);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    clSetKernelArg(k, 0, sizeof(size_t), &wg);
    size_t n;
    clCompileProgram(p, 1, &dev, "", 0, NULL, NULL, NULL, NULL);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, 0, NULL, &n);
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 0, NULL, &n);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 0, NULL, &n);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, 0, NULL, &n);
    clGetMemObjectInfo(m, CL_MEM_SIZE, 0, NULL, &n);
    clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, 0, NULL, &n);
    clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, 0, NULL, &n);
}

/* A callback that releases the event it is called with takes it over. */
static void CL_CALLBACK release_when_done(cl_event e, cl_int status, void *data) { (void)status; (void)data; clReleaseEvent(e); }

void callback_releases(cl_command_queue q, cl_mem m, float *host)
{
    cl_event rd;
    clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, host, 0, NULL, &rd);
    clSetEventCallback(rd, CL_COMPLETE, release_when_done, NULL);
}

typedef struct {
    cl_event marks[4];
    int nmarks;
} marks_t;

void counted_marks(cl_command_queue q, marks_t *m, cl_event *prev, cl_event *next)
{
    clEnqueueMarkerWithWaitList(q, 0, NULL, &m->marks[m->nmarks++]);
    prev[0] = next[0];
}

void appended(cl_command_queue q, cl_event *evts, cl_uint *nevts)
{
    clEnqueueMarkerWithWaitList(q, 0, NULL, &evts[*nevts]);
    (*nevts)++;
}

void counted_list(cl_event a, cl_event b)
{
    cl_event all[] = { a, b };
    size_t n = sizeof(all) / sizeof(all[0]);
    for (size_t i = 0; i < n; i++)
        clReleaseEvent(all[i]);
}

void asserted_failure(cl_command_queue q, cl_mem m, float *host, cl_event bad)
{
    cl_event rd;
    cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, 64, host, 1, &bad, &rd);
    assert(err == CL_INVALID_EVENT_WAIT_LIST);
}

static size_t totals[4];

void counted_args(cl_kernel k, int d)
{
    size_t count[4];
    count[d] = 64;
    clSetKernelArg(k, 0, sizeof(count[d]), &count[d]);
    clSetKernelArg(k, 1, sizeof(totals[d]), &totals[d]);
}

void mapped_for_write(cl_command_queue q, cl_mem m)
{
    cl_int err;
    float *p = (float *)clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    p[0] = 1.0f;
    clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
}

struct lane { cl_mem edges; };

void collected(cl_command_queue q, struct lane *l)
{
    cl_mem in[2];
    cl_uint n = 0;
    in[n++] = l[0].edges;
    in[n++] = l[1].edges;
    clEnqueueMigrateMemObjects(q, n, in, 0, 0, NULL, NULL);
}

static cl_program own_prog;

static cl_kernel make_kernel(const char *name)
{
    cl_int err;
    return clCreateKernel(own_prog, name, &err);
}

void own_maker(void)
{
    cl_kernel k = make_kernel("scale");
    clReleaseKernel(k);
}

/* A status kept in a struct's field: where it says the write failed, no event was made. */
struct plan { cl_command_queue q; cl_mem m; cl_int status; };
void field_status(struct plan *p, const float *host)
{
    cl_event up;
    p->status = clEnqueueWriteBuffer(p->q, p->m, CL_FALSE, 0, 64, host, 0, NULL, &up);
    if (p->status != CL_SUCCESS)
        return;
    clReleaseEvent(up);
}

/* A field declared as host data is host data as a kernel argument, whatever the struct
 * holds; a `cl_mem` field and a scalar field are not. */
struct rows { float *h_a; cl_mem d_a; cl_uint n; };
void host_field_arg(cl_kernel k, void *arg)
{
    const struct rows *r = arg;
    clSetKernelArg(k, 0, sizeof(cl_mem), &r->h_a);
    clSetKernelArg(k, 1, sizeof(cl_mem), &r->d_a);
    clSetKernelArg(k, 2, sizeof(cl_uint), &r->n);
}

/* A function of the program taking `...` is called with its named parameters; a loop
 * counter given to it by value stays what it was, and what a pointer argument points to
 * may change. */
static void note(const char *fmt, ...) { (void)fmt; }
void logged(cl_command_queue q)
{
    int count = 0;
    for (int i = 0; i < 2; i++)
        note("pass %d %p\n", i, &count);
    clFinish(q);
}

/* A table of structs holding handles, initialized by position or by designator: each
 * member is a struct with those fields. `{0}` and structs of no handles stay as they were. */
struct stage_entry { const char *name; cl_command_queue queue; cl_kernel kernel; };
struct dims { int w; int h; };
void stage_table(cl_command_queue q)
{
    struct stage_entry stages[2] = { { "blur" }, { "sharpen", q } };
    struct stage_entry one = { .queue = q, .name = "gain" };
    struct stage_entry zeroed = {0};
    struct dims d = { 640, 480 };
}

/* A status kept in a struct's field, of a function of the program given an event to write:
 * on the arm that leaves the loop after a failure, the event was not made. */
static cl_int enqueue_one(cl_command_queue q, cl_kernel k, cl_event *done);
struct worker_state { cl_int status; };
void status_field_break(struct worker_state *w, cl_command_queue q, cl_kernel k, int n)
{
    for (int i = 0; i < n; i++) {
        cl_event ev = NULL;
        w->status = enqueue_one(q, k, &ev);
        if (w->status != CL_SUCCESS)
            break;
        clReleaseEvent(ev);
    }
}

/* Arguments set in one `if` chain of assignments: each call runs only where those before
 * it succeeded, and the arm that returns the status leaves on an error. */
cl_int chained_args(cl_command_queue q, cl_kernel k, cl_mem in, cl_mem out)
{
    size_t g = 64;
    cl_int err;
    if ((err = clSetKernelArg(k, 0, sizeof(cl_mem), &in)) ||
        (err = clSetKernelArg(k, 1, sizeof(cl_mem), &out)))
        return err;
    return clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
}

/* A wait list of a count not known from a constant member on: those members, as many as
 * the count comes to where the analysis knows it. */
void wait_rest(cl_command_queue q, cl_kernel k, cl_uint ndev)
{
    cl_event done[8];
    size_t g = 1;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, ndev - 1, &done[1], NULL);
}

/* An event handed to the caller through a `cl_event *` parameter: a store into the
 * caller's event. */
cl_int handed_event(cl_command_queue q, cl_kernel k, cl_event *finished)
{
    size_t n = 64;
    cl_event made;
    cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, &made);
    if (err != CL_SUCCESS)
        return err;
    *finished = made;
    return CL_SUCCESS;
}

/* A kernel written as a stringified macro argument, and one whose text the caller gives:
 * the program's source is the macro's string, and the parameter's. */
#define STRINGIFY(...) #__VA_ARGS__
#define STR(x) STRINGIFY(x)
#define TILE 16
static const char *tiled_src = "#define TILE " STR(TILE) "\n" STRINGIFY(
    __kernel void t(__global float *a) { a[get_global_id(0)] *= 2.0f; }
);

cl_program from_macro(cl_context ctx)
{
    cl_int err;
    return clCreateProgramWithSource(ctx, 1, &tiled_src, NULL, &err);
}

cl_program from_param(cl_context ctx, const char *text)
{
    cl_int err;
    return clCreateProgramWithSource(ctx, 1, (const char **)&text, NULL, &err);
}

/* A table of cases of a struct declared with it: its members are structs with those
 * fields, so `cases[i].input` is the host data the case names. */
void table(cl_command_queue q, cl_mem m)
{
    static const float ramp[4] = { 0, 1, 2, 3 };
    struct {
        const char *name;
        const float *input;
    } cases[] = { { "ramp", ramp } };
    clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(ramp), cases[0].input, 0, NULL, NULL);
}

/* A launch from a global work offset: its work-items are those from the offset. */
void offset_launch(cl_command_queue q, cl_kernel k, size_t row0)
{
    size_t offset[2] = { 0, row0 }, global[2] = { 64, 64 };
    clEnqueueNDRangeKernel(q, k, 2, offset, global, NULL, 0, NULL, NULL);
    clEnqueueNDRangeKernel(q, k, 2, NULL, global, NULL, 0, NULL, NULL);
}

/* `int *tables[2]`: an array of host pointers is host data, one piece per member. */
void pointer_tables(cl_kernel k)
{
    int *tables[2];
    tables[1] = malloc(64);
    clSetKernelArg(k, 0, sizeof(cl_mem), &tables[1]);
}

/* A macro that returns where a test of its argument holds: that test, as an `if`. */
#define EXPECT_OK(e, what) do { if ((e) != CL_SUCCESS) { fprintf(stderr, "%s\n", what); return -1; } } while (0)

int checking_macro(cl_command_queue q, cl_mem b, float *h)
{
    cl_event ev;
    cl_int err = clEnqueueWriteBuffer(q, b, CL_FALSE, 0, 64, h, 0, NULL, &ev);
    EXPECT_OK(err, "write");
    EXPECT_OK(clFinish(q), "finish");
    clReleaseEvent(ev);
    return 0;
}

/* An array of source strings handed whole to clCreateProgramWithSource: their text. */
static const char *two_sources[] = {
    "__kernel void first(__global float *x) { x[get_global_id(0)] = 1.0f; }\n",
    "__kernel void second(__global float *x) { x[get_global_id(0)] += 1.0f; }\n",
};

cl_program source_array(cl_context ctx)
{
    cl_int err;
    return clCreateProgramWithSource(ctx, 2, two_sources, NULL, &err);
}

/* Handles handed back through pointers: stores into the caller's handles. */
cl_int out_params(cl_context ctx, cl_device_id dev, cl_program *prog, cl_command_queue *q, cl_mem *buf)
{
    cl_int err;
    cl_program made = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    *prog = made;
    *q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    *buf = m;
    return err;
}

/* `if (s->done)` of an event field: a test the analysis decides where the field holds an
 * event. */
typedef struct { cl_event up, done; } slot_t;

void release_slot(slot_t *s)
{
    if (s->up) clReleaseEvent(s->up);
    if (s->done) clReleaseEvent(s->done);
}

/* A fill of a region: its offset and size are the region's, as a write's. */
void fill_region(cl_command_queue q, cl_mem tally, size_t first, size_t count)
{
    const cl_uint zero = 0;
    clEnqueueFillBuffer(q, tally, &zero, sizeof zero, first * sizeof(cl_uint), count * sizeof(cl_uint), 0, NULL, NULL);
}
