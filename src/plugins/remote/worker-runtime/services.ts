import { PrxError } from "../../../core/errors.ts";
import type { RuntimeProxyApi, ServiceClass, ServiceInstance } from "./types.ts";

/** Service instances are created on first use (host call or runtime.getService) and kept for the worker's life. */
export class Services {
  private readonly classes = new Map<string, ServiceClass>();
  private readonly instances = new Map<string, Promise<ServiceInstance>>();

  register(service: ServiceClass): void {
    if (!this.classes.has(service.serviceType)) this.classes.set(service.serviceType, service);
  }

  has(serviceType: string): boolean {
    return this.classes.has(serviceType);
  }

  started(): string[] {
    return [...this.instances.keys()];
  }

  instance(serviceType: string, runtime: RuntimeProxyApi): Promise<ServiceInstance> {
    const existing = this.instances.get(serviceType);
    if (existing) return existing;
    const cls = this.classes.get(serviceType);
    if (!cls) return Promise.reject(new PrxError("NOT_FOUND", `service ${serviceType} is not declared by this plugin`));
    const created = Promise.resolve()
      .then(() => cls.start(runtime))
      .then((value) => value as ServiceInstance);
    // a failed start is not cached: the next call tries again
    created.catch(() => this.instances.delete(serviceType));
    this.instances.set(serviceType, created);
    return created;
  }

  async call(serviceType: string, method: string, args: unknown[], runtime: RuntimeProxyApi): Promise<unknown> {
    const cls = this.classes.get(serviceType);
    if (!cls || !cls.rpcMethods.includes(method)) {
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
    return errors;
  }
}
