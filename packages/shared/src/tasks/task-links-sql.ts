import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { tasks } from '../db/schema';

/*
 * The statement media lends from tasks: a task's links end when its stored copy goes. A leaf: it
 * imports nothing from the modules that borrow it.
 */

/**
 * Ends a succeeded task's media links at `at` (its media was deleted): the task object shows no
 * link from then on. Terminal states never change; only the links go.
 */
export async function endTaskMediaLinks(db: DbOrTx, id: string, at: Date): Promise<void> {
  await db
    .update(tasks)
    .set({ videoUrl: null, thumbnailUrl: null, expiresAt: at, updatedAt: at })
    .where(and(eq(tasks.id, id), eq(tasks.status, 'succeeded')));
}
