/**
 * How a JVM fits under `memory_limit_MB`, which Fusebox enforces (as SandboxFusion does) with `RLIMIT_AS`: a
 * bound on reserved address space, not on memory used. A default JVM reserves far more than it uses (a heap of a
 * quarter of the host's RAM, 240 MB of code cache, 1 GB of class space, a 64 MB malloc arena per thread), so
 * under verl's default 1024 it could not start a thread: "Could not create the Java Virtual Machine".
 *
 * Measured on OpenJDK 17 (Debian 12) with `prlimit --as`, javatuples and JUnit's console launcher loaded: with
 * the options below, a JVM reserves about 384 MB besides its heap (125 MB of them the `modules` image it maps).
 * Kotlin's script compiler, which maps its jars too, needed 512 MB besides a heap of at least 128 MB: kotlin_script
 * compiles in its compile step, which has no memory limit.
 */
export interface JvmFootprint {
  /** Address space the JVM reserves besides its heap, in MB. */
  reserveMB: number;
  /** The smallest heap the program's launcher itself runs in, in MB. */
  minHeapMB: number;
}

/** The JVM running a compiled program: java, junit's launcher, scala's runner, a compiled Kotlin script. */
export const JVM_PROGRAM: JvmFootprint = { reserveMB: 384, minHeapMB: 64 };

/** What a JVM step gets under a memory limit: its options, and the environment it runs with. */
export interface JvmLimits {
  options: string[];
  /**
   * One malloc arena: with more, each new thread's arena reserved 64 MB while it could, and then the JVM's own
   * threads failed to start (pthread_create EAGAIN) under 512 MB, where one arena ran.
   */
  env: string[];
}

/** The smallest `memory_limit_MB` a JVM of this footprint starts under. */
export function jvmMinimumMB(footprint: JvmFootprint): number {
  return footprint.reserveMB + footprint.minHeapMB;
}

/**
 * The options that make a JVM start under `memoryLimitMB` (none without a limit: the JVM's defaults then), or
 * undefined when the limit is below {@link jvmMinimumMB}. The heap gets what the reservations leave, at most
 * half the limit (the rest stays for threads' stacks and native memory); the serial collector starts no GC
 * threads.
 */
export function jvmLimits(memoryLimitMB: number | undefined, footprint: JvmFootprint): JvmLimits | undefined {
  if (memoryLimitMB === undefined) return { options: [], env: [] };
  if (memoryLimitMB < jvmMinimumMB(footprint)) return undefined;
  const heapMB = Math.min(Math.floor(memoryLimitMB / 2), memoryLimitMB - footprint.reserveMB);
  return {
    options: [
      '-XX:+UseSerialGC',
      `-Xmx${heapMB}m`,
      '-XX:ReservedCodeCacheSize=32m',
      '-XX:CompressedClassSpaceSize=32m',
    ],
    env: ['MALLOC_ARENA_MAX=1'],
  };
}
