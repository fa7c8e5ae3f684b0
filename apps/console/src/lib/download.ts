/**
 * A task's media link as a download: the API answers it as an attachment named after the task
 * (`&download=1`), since a browser ignores the `download` attribute of a link it may be redirected
 * from (the S3 driver's presigned link, the vendor's until the copy is stored).
 */
export const downloadLink = (url: string) => `${url}${url.includes('?') ? '&' : '?'}download=1`;
