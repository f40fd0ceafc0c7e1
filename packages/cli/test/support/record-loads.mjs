// Preloaded with `node --import`: every module the process loads is appended, one URL per line, to the file
// named by FEIRA_RECORD_LOADS. The module hooks run off the main thread, so they are registered here.
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url, { data: { file: process.env.FEIRA_RECORD_LOADS } });
