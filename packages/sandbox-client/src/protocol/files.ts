import { z } from 'zod';

/**
 * Files returned by a run: path (relative to the run's working directory) to base64 content.
 *
 * @example
 * const files = fetchedFilesSchema.parse({ 'out.txt': 'aGkK' });
 */
export const fetchedFilesSchema = z.record(z.string(), z.string());
