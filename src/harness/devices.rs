//! Platforms, devices and the device sets the scenarios run on.

use std::ptr;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::error_codes::{ClError, CL_PLATFORM_NOT_FOUND_KHR};
use opencl3::platform::{get_platforms, Platform};
use opencl3::types::cl_device_id;
use serde::{Deserialize, Serialize};

/// The error code `cl3` returns when `libOpenCL.so.1` cannot be loaded.
const RUNTIME_NOT_LOADED: i32 = opencl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED;

/// One device, as reported to the user.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub vendor: String,
    pub kind: String,
    pub version: String,
    pub driver_version: String,
    pub host_unified_memory: bool,
}

/// Two devices of one context, or one device that gets both queues.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceSet {
    /// Position of the platform in `clGetPlatformIDs`' list, used by child processes.
    pub platform_index: usize,
    pub platform: String,
    pub platform_version: String,
    pub devices: Vec<DeviceInfo>,
}

impl DeviceSet {
    /// A short name for the table.
    pub fn label(&self) -> String {
        match self.devices.as_slice() {
            [one] => format!("{} (1 device, 2 queues)", one.name),
            [a, b] if a.name == b.name => format!("2x {} (1 context)", a.name),
            devices => devices
                .iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>()
                .join(" + "),
        }
    }

    /// Why a difference in how memory moves between the devices cannot show here, if it can't.
    pub fn why_moves_unobservable(&self) -> Option<&'static str> {
        if self.devices.len() < 2 {
            Some("one device: nothing moves between devices")
        } else if self.devices.iter().all(|d| d.host_unified_memory) {
            Some("devices share host memory")
        } else {
            None
        }
    }
}

/// Why no device set could be formed.
#[derive(Debug)]
pub enum DiscoveryError {
    /// No OpenCL runtime or no platform; the string says which.
    NoPlatform(String),
    /// A platform was found but asking it failed.
    Query(String),
}

/// The platforms, filtered by `platform` (a case-insensitive part of the platform's name or
/// vendor), each with its device set; platforms without devices are left out.
pub fn discover(platform: Option<&str>) -> Result<Vec<DeviceSet>, DiscoveryError> {
    let platforms = match get_platforms() {
        Ok(platforms) if platforms.is_empty() => {
            return Err(DiscoveryError::NoPlatform(
                "the OpenCL loader lists no platform".into(),
            ))
        }
        Ok(platforms) => platforms,
        Err(ClError(RUNTIME_NOT_LOADED)) => {
            return Err(DiscoveryError::NoPlatform(
                "libOpenCL.so.1 could not be loaded".into(),
            ))
        }
        Err(ClError(CL_PLATFORM_NOT_FOUND_KHR)) => {
            return Err(DiscoveryError::NoPlatform(
                "the OpenCL loader found no installed driver (CL_PLATFORM_NOT_FOUND_KHR)".into(),
            ))
        }
        Err(e) => {
            return Err(DiscoveryError::NoPlatform(format!(
                "clGetPlatformIDs failed: {e}"
            )))
        }
    };
    let wanted = platform.map(str::to_lowercase);
    let mut sets = Vec::new();
    for (platform_index, p) in platforms.iter().enumerate() {
        let name = p.name().map_err(|e| query_error("platform name", e))?;
        let vendor = p.vendor().unwrap_or_default();
        if let Some(wanted) = &wanted {
            if !name.to_lowercase().contains(wanted) && !vendor.to_lowercase().contains(wanted) {
                continue;
            }
        }
        let ids = set_devices(p);
        if ids.is_empty() {
            continue;
        }
        let devices = ids
            .iter()
            .map(|&id| describe(id))
            .collect::<Result<Vec<_>, _>>()?;
        sets.push(DeviceSet {
            platform_index,
            platform: name,
            platform_version: p.version().unwrap_or_default(),
            devices,
        });
    }
    if sets.is_empty() {
        return Err(match platform {
            Some(wanted) => DiscoveryError::NoPlatform(format!(
                "no OpenCL platform with devices matches `{wanted}`"
            )),
            None => DiscoveryError::NoPlatform("no OpenCL platform has a device".into()),
        });
    }
    Ok(sets)
}

fn query_error(what: &str, e: ClError) -> DiscoveryError {
    DiscoveryError::Query(format!("reading the {what} failed: {e}"))
}

/// The first two devices of the platform if they can share a context, else the first.
fn set_devices(platform: &Platform) -> Vec<cl_device_id> {
    let all = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
    if all.len() >= 2 && Context::from_devices(&all[..2], &[], None, ptr::null_mut()).is_ok() {
        all[..2].to_vec()
    } else {
        all.into_iter().take(1).collect()
    }
}

fn describe(id: cl_device_id) -> Result<DeviceInfo, DiscoveryError> {
    let device = Device::new(id);
    let kind = match device
        .dev_type()
        .map_err(|e| query_error("device type", e))?
    {
        t if t & CL_DEVICE_TYPE_GPU != 0 => "GPU",
        t if t & CL_DEVICE_TYPE_CPU != 0 => "CPU",
        t if t & CL_DEVICE_TYPE_ACCELERATOR != 0 => "accelerator",
        _ => "other",
    };
    Ok(DeviceInfo {
        name: device
            .name()
            .map_err(|e| query_error("device name", e))?
            .trim()
            .to_string(),
        vendor: device.vendor().unwrap_or_default(),
        kind: kind.into(),
        version: device.version().unwrap_or_default(),
        driver_version: device.driver_version().unwrap_or_default(),
        // CPU devices work in host memory whatever the (deprecated) query says.
        host_unified_memory: kind == "CPU" || device.host_unified_memory().unwrap_or(false),
    })
}

/// A context on a device set and the two profiling queues handed to the scenarios.
pub struct Environment {
    pub context: Context,
    pub cmdq_dev0: CommandQueue,
    pub cmdq_dev1: CommandQueue,
}

impl Environment {
    /// Opens the device set of platform `platform_index` with `devices` devices (1 or 2), as
    /// `discover` formed it.
    pub fn open(platform_index: usize, devices: usize) -> Result<Self, String> {
        let platforms = get_platforms().map_err(|e| format!("listing platforms: {e}"))?;
        let platform = platforms.get(platform_index).ok_or_else(|| {
            format!(
                "platform {platform_index} is not in this process's list of {} platforms",
                platforms.len()
            )
        })?;
        let ids = platform
            .get_devices(CL_DEVICE_TYPE_ALL)
            .map_err(|e| format!("listing devices: {e}"))?;
        if ids.len() < devices || !(1..=2).contains(&devices) {
            return Err(format!(
                "platform {platform_index} has {} devices, {devices} wanted",
                ids.len()
            ));
        }
        let ids = &ids[..devices];
        let context = Context::from_devices(ids, &[], None, ptr::null_mut())
            .map_err(|e| format!("creating the context: {e}"))?;
        let cmdq_dev0 = profiling_queue(&context, ids[0])?;
        let cmdq_dev1 = profiling_queue(&context, ids[devices - 1])?;
        Ok(Environment {
            context,
            cmdq_dev0,
            cmdq_dev1,
        })
    }
}

/// An in-order queue with profiling; OpenCL 2.0's constructor first, then 1.x's.
fn profiling_queue(context: &Context, id: cl_device_id) -> Result<CommandQueue, String> {
    // SAFETY: `id` is one of the devices `context` was created from.
    unsafe {
        CommandQueue::create_with_properties(context, id, CL_QUEUE_PROFILING_ENABLE, 0)
            .or_else(|_| CommandQueue::create(context, id, CL_QUEUE_PROFILING_ENABLE))
    }
    .map_err(|e| format!("creating a command queue: {e}"))
}
