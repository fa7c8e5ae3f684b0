import { z } from 'zod';

/** Console and admin answers: documented by their main fields, open to more. */
export const consoleObject = (id: string, fields: z.ZodRawShape = {}) =>
  z.looseObject({ object: z.string().optional(), ...fields }).meta({ id });

export const healthResponse = z.looseObject({ status: z.string() }).meta({ id: 'Health' });
