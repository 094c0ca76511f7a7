/** Test fixture: appends `count` large epoch-commit events as writer `name` to a history dir. */
import { HistoryWriter } from '../history/index.ts';

const [dir = '', name = '', count = '0'] = process.argv.slice(2);
const writer = HistoryWriter.open(dir, name);
for (let i = 0; i < Number(count); i += 1) {
  // Far above PIPE_BUF (4096 bytes): safe only because each process has its own file.
  const messageIds = Array.from({ length: 600 }, (_, j) => `1-${i}-${j}`);
  writer.append({
    type: 'epoch-commit',
    sink: name,
    sinkClass: 'AtLeastOnceClickHouseSink',
    partition: 0,
    epoch: i + 1,
    fromSeq: 0,
    toSeq: 600,
    messageIds,
    batches: [],
  });
}
writer.close();
