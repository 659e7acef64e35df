/**
 * Blog posts with embedded comments, built in process with the driver's BSON types (ObjectId _ids, Dates),
 * from a seeded generator so every run sees the same shapes and sizes.
 */
import { ObjectId } from 'mongodb';
import { prng as rng } from '../../src/core/stats';

export interface Comment {
  author: string;
  text: string;
  createdAt: Date;
  likes: number;
}

export interface Post {
  _id: ObjectId;
  title: string;
  author: string;
  tags: string[];
  createdAt: Date;
  views: number;
  score: number;
  published: boolean;
  comments: Comment[];
}

/** The seeded PRNG the advisor's bootstrap uses (mulberry32, uniform in [0, 1)). */
export { rng };

const WORDS = [
  'mongo',
  'schema',
  'index',
  'array',
  'embed',
  'shard',
  'cache',
  'query',
  'write',
  'read',
  'page',
  'tree',
  'café',
  'naïve',
  'zstd',
];
const TAGS = ['db', 'nosql', 'perf', 'ops', 'howto', 'news'];
const AUTHORS = Array.from({ length: 50 }, (_, i) => `user${i}`);

function words(r: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + (WORDS[Math.floor(r() * WORDS.length)] as string);
  return s;
}

const PROCESS_HEX = '5f3a9c01d2';

/** As a driver makes them: 4 bytes of seconds, 5 per-process bytes, a 3-byte counter. */
function objectIdAt(ms: number, counter: number): ObjectId {
  const secs = Math.floor(ms / 1000)
    .toString(16)
    .padStart(8, '0');
  const count = (counter & 0xffffff).toString(16).padStart(6, '0');
  return new ObjectId(secs + PROCESS_HEX + count);
}

export interface BlogOptions {
  /** Comments per post are uniform in [0, maxComments]. */
  maxComments: number;
  seed?: number;
  /** Creation time of the first post (ms since epoch); posts are one minute apart. */
  startMs?: number;
}

/** A generator of posts: call it with the post's ordinal. _ids are ObjectIds taken at the post's creation time. */
export function blogPosts(opts: BlogOptions): (i: number) => Post {
  const r = rng(opts.seed ?? 42);
  const start = opts.startMs ?? Date.UTC(2024, 0, 1);
  return (i: number): Post => {
    const createdMs = start + i * 60_000;
    const nComments = Math.floor(r() * (opts.maxComments + 1));
    const comments: Comment[] = new Array<Comment>(nComments);
    for (let c = 0; c < nComments; c++) {
      comments[c] = {
        author: AUTHORS[Math.floor(r() * AUTHORS.length)] as string,
        text: words(r, 3 + Math.floor(r() * 10)),
        createdAt: new Date(createdMs + (c + 1) * 3_600_000),
        likes: Math.floor(r() * 100),
      };
    }
    const nTags = Math.floor(r() * 4);
    const tags: string[] = [];
    for (let t = 0; t < nTags; t++) tags.push(TAGS[Math.floor(r() * TAGS.length)] as string);
    return {
      _id: objectIdAt(createdMs, i),
      title: words(r, 4 + Math.floor(r() * 6)),
      author: AUTHORS[Math.floor(r() * AUTHORS.length)] as string,
      tags,
      createdAt: new Date(createdMs),
      views: Math.floor(r() * 100_000),
      score: Math.round(r() * 5000) / 1000 + 0.0005,
      published: r() < 0.9,
      comments,
    };
  };
}
