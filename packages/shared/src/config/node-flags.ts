/**
 * The V8 flags every mediagate process runs with. The image puts them in NODE_OPTIONS
 * (Dockerfile); `pnpm start` and the test and bench launchers pass them to each process they
 * spawn, so what is tested and measured is what ships.
 *
 * `--max-semi-space-size=16`: Node 24 gives V8 a 64 MB semi-space (a 128 MB young generation)
 * whatever the machine, where Node 20 used 16 MB. An API replica's young generation is almost
 * all short-lived request garbage, so the larger one buys few scavenges and costs ~100 MB of
 * resident memory per process under load (measured with the fuzz suite: peak RSS 373-420 MB with
 * the Node 24 default, 343 MB with 16 MB).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
