// Every opencl.hpp row (cpp.toml) called the way C++ host code calls it, and the shapes
// the C++ frontend must read: `OCL_CHECK` around declarations, as the Vitis examples
// write them, `std::vector<cl::Event>` wait lists, braced object lists, methods of a class.
#include <CL/opencl.hpp>
#include <memory>
#include <type_traits>
#include <vector>

#define OCL_CHECK(error, call) call; if (error != CL_SUCCESS) { exit(EXIT_FAILURE); }

void api(cl::Context &ctx, cl::Device &dev, std::vector<float> &host)
{
    cl_int err;
    cl::Context c2(dev);
    cl::CommandQueue q(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    cl::CommandQueue q2(ctx, dev, 0, &err);
    std::vector<cl::CommandQueue> qs;
    qs.push_back(cl::CommandQueue(ctx, dev));
    qs.emplace_back(ctx, dev);
    cl::Program p(ctx, "__kernel void k(__global float* a) { a[0] = 1.0f; }");
    cl::Program p2(ctx, "__kernel void k(__global float* a) { }", true);
    cl::Program p3(ctx, "__kernel void k3(__global float* a, float s) { }", false, &err);
    cl::Kernel k(p, "k");
    cl::Buffer a(ctx, CL_MEM_READ_WRITE, 1024);
    cl::Buffer b(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 1024, host.data());
    cl::Buffer c(ctx, CL_MEM_READ_WRITE, 1024, nullptr, &err);
    // Made from the data between two iterators: copied in, as CL_MEM_COPY_HOST_PTR does.
    cl::Buffer d(ctx, host.begin(), host.end(), true);
    cl::Buffer e(q, std::begin(host), std::end(host), false, false, &err);
    cl::UserEvent user(ctx);
    cl::Event ev, ev2;
    std::vector<cl::Event> deps;

    q.enqueueWriteBuffer(a, CL_FALSE, 0, 1024, host.data(), nullptr, &ev);
    deps.push_back(ev);
    q2.enqueueReadBuffer(a, CL_TRUE, 0, 1024, host.data(), &deps);
    q.enqueueWriteBufferRect(a, CL_TRUE, o, o, r, 0, 0, 0, 0, host.data());
    q.enqueueReadBufferRect(a, CL_TRUE, o, o, r, 0, 0, 0, 0, host.data());
    q.enqueueCopyBuffer(a, b, 0, 0, 1024, &deps, &ev2);
    q.enqueueFillBuffer(c, 0.0f, 0, 1024);
    user.setStatus(CL_COMPLETE);
    // Null slots for raw events, one per queue given: as many as the analysis finds.
    const size_t nslots = deps.size();
    std::vector<cl_event> raw_slots(nslots, nullptr);
    q2.enqueueMigrateMemObjects({a, b}, 0, &deps, &ev);
    q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(256), cl::NullRange, &deps, &ev2);
    q.enqueueTask(k);
    q.enqueueMarkerWithWaitList(&deps, &ev);
    q.enqueueBarrierWithWaitList();
    void *m = q.enqueueMapBuffer(b, CL_TRUE, CL_MAP_READ, 0, 1024);
    q.enqueueUnmapMemObject(b, m);
    k.setArg(0, a);
    k.setArg(1, sizeof(float), &scale);
    ev.wait();
    cl::WaitForEvents(deps);
    cl::Event::waitForEvents(deps);
    q.flush();
    q2.finish();
}

void vitis(cl::Context &context, cl::CommandQueue &q, std::vector<float> &in)
{
    cl_int err;
    OCL_CHECK(err, cl::Buffer buffer_in(context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, 1024, in.data(), &err));
    OCL_CHECK(err, cl::Kernel krnl(program, "vadd", &err));
    OCL_CHECK(err, err = krnl.setArg(0, buffer_in));
    OCL_CHECK(err, err = q.enqueueMigrateMemObjects({buffer_in}, 0 /* 0 means from host*/));
    OCL_CHECK(err, err = q.enqueueTask(krnl));
    OCL_CHECK(err, err = q.finish());
}

class Halo {
  public:
    void step(int i);
    void sync() { q0.finish(); }

  private:
    cl::CommandQueue q0, q1;
    cl::Buffer halo;
    cl::Kernel k0;
};

void Halo::step(int i)
{
    k0.setArg(0, halo);
    q0.enqueueNDRangeKernel(k0, cl::NullRange, cl::NDRange(256));
    sync();
    q1.enqueueMigrateMemObjects({halo}, 0);
}

void functors(cl::Program program, cl::CommandQueue q, cl::Buffer a, cl::Buffer b, cl::Event ready,
              std::vector<cl::Event> deps, int n)
{
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int> scale(program, "scale");
    auto add = cl::make_kernel<cl::Buffer, cl::Buffer>(program, "add");
    cl::NDRange global(n);
    cl::Event e1 = scale(cl::EnqueueArgs(q, ready, global), a, b, n);
    cl::Event e2 = scale(cl::EnqueueArgs(q, deps, cl::NDRange(n), cl::NDRange(64)), a, b, n);
    add(cl::EnqueueArgs(q, cl::NDRange(n)), a, b);
}

void lambdas(cl::CommandQueue q0, cl::CommandQueue q1, cl::Kernel k)
{
    // A lambda with parameters: each call binds them, then runs its body.
    auto launch = [](cl::CommandQueue &q, cl::Kernel &kernel, size_t n) {
        q.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n));
    };
    launch(q0, k, 64);
    launch(q1, k, 128);
    std::vector<cl::CommandQueue> queues{q0, q1};
    queues.back().finish();
}

// A class of the file made by a declaration: a value of its own (its vectors of handles
// empty) given to its constructor; `emplace_back` on a member vector makes the element.
class Stage {
    std::vector<cl::CommandQueue> queues;
    cl::Buffer data;

public:
    Stage(cl::Context ctx, cl::Device dev) { queues.emplace_back(ctx, dev); }
    int run() { return queues[0].finish() == CL_SUCCESS ? 0 : -1; }
};

int classes(cl::Context ctx, cl::Device dev)
{
    Stage stage(ctx, dev);
    if (stage.run() != 0)
        return -1;
    return 0;
}

void filled_vectors(size_t n, std::vector<float> &src)
{
    // A vector of numbers made from a count and a value, or from two iterators: host data.
    std::vector<float> bias(n, 0.1f);
    std::vector<float> copy(src.begin(), src.end());
}

struct Lane {
    cl::CommandQueue q;
    cl::Kernel k;
};

void lanes(cl::Context ctx, cl::Device dev, cl::Buffer buf, size_t n)
{
    // A struct of the file declared without a constructor: a value whose members are set
    // one by one. A member at a loop index is named by the index (`lanes[d]`).
    std::vector<Lane> all;
    for (size_t d = 0; d < n; ++d) {
        Lane l;
        l.q = cl::CommandQueue(ctx, dev);
        all.push_back(l);
    }
    for (size_t d = 0; d < all.size(); ++d) {
        Lane &l = all[d];
        l.k.setArg(0, buf);
    }
}

void platform_halves(cl::Platform &platform, std::vector<float> &host)
{
    std::vector<cl::Device> devices;
    platform.getDevices(CL_DEVICE_TYPE_GPU, &devices);
    cl::Context ctx(devices);
    std::vector<cl::CommandQueue> queues;
    for (auto &dev : devices)
        queues.emplace_back(ctx, dev);
    cl::Buffer all(ctx, CL_MEM_READ_WRITE, 1024);
    cl_buffer_region region{0, 512};
    cl::Buffer low = all.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
    for (auto &q : queues)
        q.enqueueWriteBuffer(low, CL_TRUE, 0, 512, host.data());
}

struct Hop {
    cl::CommandQueue queue;
    cl::Kernel step;
};

void hops(cl::Context &ctx, cl::Device &dev, cl::Program &prog, cl::Buffer &table, std::vector<float> &host)
{
    std::vector<Hop> all;
    all.push_back({cl::CommandQueue(ctx, dev), cl::Kernel(prog, "step")});
    for (auto &h : all)
        cl::copy(h.queue, host.begin(), host.end(), table);
}

static void CL_CALLBACK on_done(cl_event, cl_int, void *) {}

void callbacks(cl::CommandQueue &q, cl::Buffer &b, std::vector<float> &host)
{
    cl::Event rd;
    q.enqueueReadBuffer(b, CL_FALSE, 0, host.size() * sizeof(float), host.data(), nullptr, &rd);
    rd.setCallback(CL_COMPLETE, on_done, nullptr);
}

// `queue()` of a `cl::CommandQueue` gives the handle it wraps to a C API call.
void wrapped(cl::CommandQueue &queue, cl::Kernel &kernel)
{
    cl_event raw;
    const size_t g = 64;
    clEnqueueNDRangeKernel(queue(), kernel(), 1, nullptr, &g, nullptr, 0, nullptr, &raw);
    clReleaseEvent(raw);
}

// A flag only one arm of a choice names is not certainly asked for; an event given to a
// class template (an owning `std::unique_ptr`) is that object's, not a list.
struct Release {
    void operator()(cl_event e) const { clReleaseEvent(e); }
};
using owned = std::unique_ptr<std::remove_pointer_t<cl_event>, Release>;

void chosen_order(cl_context ctx, cl_device_id dev, cl_mem m, bool ooo)
{
    cl_int err;
    cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, ooo ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0 };
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    cl_event raw;
    clEnqueueMigrateMemObjects(q, 1, &m, 0, 0, nullptr, &raw);
    owned held{raw};
}

// A range-for whose body stores through the member (`&l.done`) walks the list by index.
struct Lane {
    cl::CommandQueue q;
    cl::Kernel k;
    cl::Event done;
};

void lanes_by_reference(std::vector<Lane> &given, cl::Context ctx, cl::Device dev)
{
    std::vector<Lane> lanes(2);
    for (Lane &l : lanes)
        l.q = cl::CommandQueue(ctx, dev);
    for (Lane &l : lanes)
        l.q.enqueueNDRangeKernel(l.k, cl::NullRange, cl::NDRange(64), cl::NullRange, nullptr, &l.done);
    for (Lane &l : given)
        l.q.finish();
}

// `true` and `false` are the integers a callee's test decides on.
void flags(cl_command_queue q, bool settle)
{
    bool always = true, never = false;
    if (settle && always && !never)
        clFinish(q);
}

void at_members(cl_context ctx, cl_device_id dev)
{
    std::vector<cl_command_queue> qs;
    qs.push_back(clCreateCommandQueueWithProperties(ctx, dev, nullptr, nullptr));
    qs.push_back(clCreateCommandQueueWithProperties(ctx, dev, nullptr, nullptr));
    clFinish(qs.at(1));
}

void wrapper_map(cl::CommandQueue &q, cl::Buffer &b)
{
    void *p = q.enqueueMapBuffer(b, CL_TRUE, CL_MAP_WRITE, 0, 64);
    q.enqueueUnmapMemObject(b, p);
}

// `std::thread` started with a lambda, a local bound to one and a function of the program,
// one by one or into a vector of threads; each joined.
void chunk(cl::CommandQueue &q) { q.finish(); }

void threads(std::vector<cl::CommandQueue> &qs)
{
    std::thread first([&] { qs[0].finish(); });
    auto drain = [&](size_t d) { qs[d].finish(); };
    std::vector<std::thread> workers;
    workers.emplace_back(drain, 1);
    workers.emplace_back(chunk, std::ref(qs[0]));
    for (auto &w : workers)
        w.join();
    first.join();
}

// A member of a member `std::array` of host vectors is host data.
class Taps {
public:
    void bind(cl::Kernel &k) { k.setArg(0, host_[1]); }

private:
    std::array<std::vector<float>, 2> host_;
};

// A local struct moved into a vector is the vector's member.
struct MovedPart { cl_command_queue q; cl_kernel k; };
void moved_into_vector(cl_context ctx, cl_device_id dev, cl_program prog)
{
    std::vector<MovedPart> parts;
    cl_int err;
    MovedPart p;
    p.q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err);
    p.k = clCreateKernel(prog, "step", &err);
    parts.push_back(std::move(p));
    clFinish(parts[0].q);
}

// A member vector of structs walked by reference, storing into its members: a loop over
// its indices, each pass the member at that index.
struct RangeSlice { cl::CommandQueue queue; cl::Event done; };
class RangeOwner {
public:
    void finish_all()
    {
        for (auto &s : slices_)
            s.queue.enqueueMarkerWithWaitList(nullptr, &s.done);
    }

private:
    std::vector<RangeSlice> slices_;
};

// Objects owned through `std::make_unique` by a class template, reached through accessors
// that return references: a call's result is of the class its method returns.
class OwnedSlot {
public:
    OwnedSlot(const cl::Context &ctx, const cl::Device &dev) : queue_(ctx, dev) {}
    cl::CommandQueue &queue() { return queue_; }

private:
    cl::CommandQueue queue_;
};
template <std::size_t N>
class SlotOwner {
public:
    SlotOwner(const cl::Context &ctx, const std::vector<cl::Device> &devices)
    {
        for (std::size_t i = 0; i < N; ++i)
            slots_[i] = std::make_unique<OwnedSlot>(ctx, devices[i]);
    }
    OwnedSlot &slot(std::size_t i) { return *slots_[i]; }
    void sync()
    {
        OwnedSlot &s = slot(1);
        s.queue().finish();
        slot(0).queue().finish();
    }

private:
    std::array<std::unique_ptr<OwnedSlot>, N> slots_;
};
void owned_slots(const cl::Context &ctx, const std::vector<cl::Device> &devices)
{
    SlotOwner<2> owner(ctx, devices);
    owner.sync();
}

// Building a program changes nothing that is followed; a throw leaves by the error path.
void built_or_thrown(const cl::Context &ctx, const std::vector<cl::Device> &devices, const std::string &src)
{
    cl::Program program(ctx, src);
    program.build(devices);
    std::vector<cl::CommandQueue> queues;
    for (const auto &dev : devices)
        queues.emplace_back(ctx, dev);
    if (queues.empty())
        throw std::runtime_error("no device");
    queues[0].finish();
}

// Data members of an RAII template's aliases, one in a `std::array`, made by a
// function-style cast (`QueueOf(clCreate..(..))`) and handed out by `.get()`.
template <typename T, cl_int (*Release)(T)>
class OwnedOf {
public:
    OwnedOf() = default;
    explicit OwnedOf(T h) : h_(h) {}
    ~OwnedOf() { if (h_) Release(h_); }
    T get() const { return h_; }

private:
    T h_ = nullptr;
};
using QueueOf = OwnedOf<cl_command_queue, clReleaseCommandQueue>;
using MemOf = OwnedOf<cl_mem, clReleaseMemObject>;
class OwnedMembers {
public:
    OwnedMembers(cl_context ctx, cl_device_id dev)
    {
        cl_int err;
        q_ = QueueOf(clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err));
        parts_[0] = MemOf(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err));
    }
    void drain()
    {
        cl_mem first = parts_[0].get();
        clEnqueueMigrateMemObjects(q_.get(), 1, &first, 0, 0, nullptr, nullptr);
    }
    void sync() { clFinish(q_.get()); }

private:
    QueueOf q_;
    std::array<MemOf, 2> parts_;
};

// A file-level constant passed by `setArg` has its declared type's size.
constexpr std::size_t kTypedSlots = 256;
void typed_constant_arg(cl::Kernel &k)
{
    k.setArg(2, kTypedSlots);
}

// An event stored into a field that is an array of events (`std::array<cl_event, 2>`,
// `cl_event[2]`) is that member's, whatever the stored value's type.
struct Pending {
    std::array<cl_event, 2> done{};
};

void pending_events(cl_command_queue q, cl_kernel k)
{
    auto make = [&]() {
        cl_event ev;
        clEnqueueTask(q, k, 0, nullptr, &ev);
        return ev;
    };
    Pending p;
    for (int d = 0; d < 2; ++d)
        p.done[d] = make();
}

// `prev = std::move(done)` of a list of events: the list itself moves.
void moved_events(cl::CommandQueue &q, cl::Kernel &k)
{
    std::vector<cl::Event> prev;
    std::vector<cl::Event> done(1);
    q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NullRange, nullptr, &done[0]);
    prev = std::move(done);
    q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NullRange, &prev);
}

// A launch from a global work offset (`cl::NDRange(0, row0)`); `cl::NullRange` is none.
void offset_band(cl::CommandQueue &q, cl::Kernel &k, int row0)
{
    q.enqueueNDRangeKernel(k, cl::NDRange(0, row0), cl::NDRange(64, 64));
    q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64, 64));
}

// A lambda handed to a local lambda that calls it (`timed("x", [&] { .. })`): its body runs
// where the parameter is called.
void handed_lambda(cl::CommandQueue &q, cl::Kernel &k)
{
    auto timed = [](const char *what, const std::function<void()> &work) { work(); };
    timed("launch", [&] { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64)); });
}

// `std::async(std::launch::async, work, d)`: a task run by a host thread; `get()` of its
// future joins it and gives what the callable returned.
void async_tasks(cl::CommandQueue &q, cl::Kernel &k)
{
    auto work = [&](int d) -> cl::Event {
        cl::Event done;
        q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NullRange, nullptr, &done);
        return done;
    };
    auto first = std::async(std::launch::async, work, 0);
    std::vector<std::future<cl::Event>> rest;
    rest.push_back(std::async(work, 1));
    std::vector<cl::Event> done{first.get()};
    for (auto &f : rest)
        done.push_back(f.get());
    q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NullRange, &done);
}

// A vector of event lists: `ready[d].clear()` empties the member, `emplace_back()` and
// `back()` name its new last event.
void event_lists(std::vector<cl::CommandQueue> &q, cl::Buffer &b, std::vector<float> &h)
{
    std::vector<std::vector<cl::Event>> ready(2);
    for (size_t d = 0; d < 2; ++d) {
        ready[d].clear();
        ready[d].emplace_back();
        q[d].enqueueWriteBuffer(b, CL_FALSE, 0, 4, h.data(), nullptr, &ready[d].back());
    }
}

// `{}` for a `cl::Event` field is no event yet, not an empty list of events.
struct Step { const char* name; cl::Event done; };

void event_field(cl::CommandQueue& q, cl::Buffer& b, std::vector<float>& h)
{
    Step up{"upload", {}};
    q.enqueueWriteBuffer(b, CL_FALSE, 0, 64, h.data(), nullptr, &up.done);
}

// A list of a class of the file held through `std::unique_ptr`: `for (auto& s : slots)` and
// a reference bound to `*slots[d]` are that class, whose methods are followed.
struct Slot {
    cl::CommandQueue queue;
    void drain() { queue.finish(); }
};

void smart_slots(std::vector<std::unique_ptr<Slot>>& slots)
{
    for (auto& s : slots)
        s->drain();
    Slot& first = *slots[0];
    first.drain();
}
