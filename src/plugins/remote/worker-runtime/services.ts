import { PrxError, errorMessage } from "../../../core/errors.ts";
import type { RuntimeProxyApi, ServiceClass, ServiceInstance } from "./types.ts";

/** The methods the host may call on a service: its `static rpcMethods`, or none when it declares no such list. */
export function rpcMethodsOf(service: ServiceClass): readonly string[] {
  return service.rpcMethods ?? [];
}

/**
 * Service instances, kept for the worker's life. A service with `static rpcMethods` starts on first use (a host call
 * or runtime.getService); one without them cannot be reached by the host, so it starts with the plugin, right after
 * init, as elizaOS starts services; the plugin reaches it with runtime.getService(type).
 */
export class Services {
  private readonly classes = new Map<string, ServiceClass>();
  private readonly instances = new Map<string, Promise<ServiceInstance>>();
  private readonly running = new Map<string, ServiceInstance>();

  /** `onStarted` hears of every instance that started (the bootstrap tells the host). */
  constructor(private readonly onStarted: (serviceType: string) => void = () => {}) {}

  register(service: ServiceClass): void {
    if (!this.classes.has(service.serviceType)) this.classes.set(service.serviceType, service);
  }

  has(serviceType: string): boolean {
    return this.classes.has(serviceType);
  }

  started(): string[] {
    return [...this.running.keys()];
  }

  /** The started instance, synchronously; undefined when it has not started (yet). */
  live(serviceType: string): ServiceInstance | undefined {
    return this.running.get(serviceType);
  }

  instance(serviceType: string, runtime: RuntimeProxyApi): Promise<ServiceInstance> {
    const existing = this.instances.get(serviceType);
    if (existing) return existing;
    const cls = this.classes.get(serviceType);
    if (!cls) return Promise.reject(new PrxError("NOT_FOUND", `service ${serviceType} is not declared by this plugin`));
    const created = Promise.resolve()
      .then(() => cls.start(runtime))
      .then((value) => {
        if (!value || typeof value !== "object") {
          throw new PrxError("PLUGIN_ERROR", `service ${serviceType}: static start() returned no instance`, {
            hint: "start(runtime) must return (a Promise of) the service instance",
          });
        }
        this.running.set(serviceType, value as ServiceInstance);
        this.onStarted(serviceType);
        return value as ServiceInstance;
      });
    // a failed start is not cached: the next call tries again
    created.catch(() => this.instances.delete(serviceType));
    this.instances.set(serviceType, created);
    return created;
  }

  /** Start every registered service without rpcMethods (at plugin start). Rejects naming the first that failed. */
  async startUnreachable(runtime: RuntimeProxyApi): Promise<void> {
    for (const [type, cls] of this.classes) {
      if (cls.rpcMethods !== undefined || this.instances.has(type)) continue;
      try {
        await this.instance(type, runtime);
      } catch (error) {
        throw new PrxError("PLUGIN_LOAD", `service ${type} failed to start: ${errorMessage(error)}`, { cause: error });
      }
    }
  }

  async call(serviceType: string, method: string, args: unknown[], runtime: RuntimeProxyApi): Promise<unknown> {
    const cls = this.classes.get(serviceType);
    if (!cls || !rpcMethodsOf(cls).includes(method)) {
      throw new PrxError("FORBIDDEN", `${serviceType}.${method} is not in the service's static rpcMethods`);
    }
    const instance = await this.instance(serviceType, runtime);
    const fn = (instance as Record<string, unknown>)[method];
    if (typeof fn !== "function") {
      throw new PrxError(
        "NOT_FOUND",
        `service ${serviceType} lists rpcMethod "${method}" but its instance has no such method`,
      );
    }
    return (fn as (...a: unknown[]) => unknown).apply(instance, args);
  }

  /** Stop every started instance (instance.stop(), else static stop(runtime)). Errors are returned, not thrown. */
  async stopAll(runtime: RuntimeProxyApi): Promise<string[]> {
    const errors: string[] = [];
    for (const [type, pending] of this.instances) {
      try {
        const instance = await pending;
        if (typeof instance.stop === "function") await instance.stop();
        else await this.classes.get(type)?.stop?.(runtime);
      } catch (error) {
        errors.push(`${type}: ${(error as Error).message}`);
      }
    }
    this.instances.clear();
    this.running.clear();
    return errors;
  }
}
