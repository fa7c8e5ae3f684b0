import { z } from 'zod';

/** A time in an answer. */
export const unixSeconds = z.number().int().describe('Unix seconds');
