// A rollout worker process for the multi-node limiter test: one CodeInterpreterTool on a shared Postgres limit.
// It prints `ready`, waits for a line on stdin so that every worker starts together, runs its tasks at once, and
// prints each run's [start, end] in epoch ms (start = when its permit was granted) as one JSON line.
import { once } from 'node:events';
import { CodeInterpreterTool } from '@fusebox/tools';

const [url, databaseUrl, key, limit, tasks, seconds] = process.argv.slice(2);
const tool = new CodeInterpreterTool({
  sandbox_fusion_url: url,
  database_url: databaseUrl,
  rate_limit_key: key,
  rate_limit: Number(limit),
});
const { instanceId } = await tool.create();
await tool.execute(instanceId, { code: 'pass' }); // connects the limiter before the start line
console.log('ready');
await once(process.stdin, 'data');
process.stdin.destroy(); // a readable stdin would keep the process alive
const runs = await Promise.all(
  Array.from({ length: Number(tasks) }, async () => {
    const called = Date.now();
    const { response, metrics } = await tool.execute(instanceId, {
      code: `import time\ntime.sleep(${seconds})\nprint("done")`,
    });
    if (response.text !== 'done\n') throw new Error(`unexpected output: ${response.text ?? ''}`);
    return [called + Number(metrics.queueWaitMs), Date.now()];
  }),
);
console.log(JSON.stringify(runs));
await tool.close();
