// Generated from the API's OpenAPI document by `pnpm gen:api`; do not edit.

export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness */
    get: operations['getHealthz'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: Postgres, Redis and migrations answer and the process is not draining */
    get: operations['getReadyz'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This document (every route but the operators') */
    get: operations['getOpenapiJson'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/docs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Browsable API reference */
    get: operations['getDocs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The operators' routes (an operator's session only) */
    get: operations['getAdminApiOpenapiJson'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/media/uploads/{file}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A playground upload by its URL, without credentials, until it expires */
    get: operations['getMediaUploadsFile'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/media/{taskId}/{file}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A task's video (video.mp4) or first frame (thumbnail.jpg) by its signed link (?exp=&sig=, &download=1 for an attachment), without a key */
    get: operations['getMediaTaskIdFile'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the account's tasks, newest first */
    get: operations['getV1Videos'];
    put?: never;
    /** Create an image-to-video task (JSON, or the multipart form of the openai client); honours Idempotency-Key */
    post: operations['postV1Videos'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Retrieve a task */
    get: operations['getV1VideosTaskId'];
    put?: never;
    post?: never;
    /** Delete a finished task's kept video and first frame */
    delete: operations['deleteV1VideosTaskId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-Sent Events: the task object at once and on every move, ending after the terminal state; resumable with Last-Event-ID */
    get: operations['getV1VideosTaskIdEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel a task (full refund) */
    post: operations['postV1VideosTaskIdCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/content': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download a succeeded task's video (variant=video, MP4) or first frame (variant=thumbnail, JPEG) */
    get: operations['getV1VideosTaskIdContent'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/remix': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Remix a video (not supported by these models) */
    post: operations['postV1VideosTaskIdRemix'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/edits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Edit a video (not supported by these models) */
    post: operations['postV1VideosEdits'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/extensions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Extend a video (not supported by these models) */
    post: operations['postV1VideosExtensions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/characters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a video character (not supported by these models) */
    post: operations['postV1VideosCharacters'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/characters/{characterId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Retrieve a video character (not supported by these models) */
    get: operations['getV1VideosCharactersCharacterId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/callbacks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A task's callback deliveries and their attempts */
    get: operations['getV1VideosTaskIdCallbacks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/videos/{taskId}/callbacks/{deliveryId}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a callback delivery again */
    post: operations['postV1VideosTaskIdCallbacksDeliveryIdRedeliver'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's whsec_ signing secret */
    get: operations['getV1WebhooksSecret'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/secret/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Rotate the signing secret (both signatures are sent for 24 hours) */
    post: operations['postV1WebhooksSecretRotate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Which events the account receives */
    get: operations['getV1WebhooksSettings'];
    put?: never;
    /** Opt in or out of video.processing events */
    post: operations['postV1WebhooksSettings'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/endpoints': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's callback endpoints that failed, and whether they are disabled */
    get: operations['getV1WebhooksEndpoints'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/endpoints/{endpointId}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable a disabled endpoint: what it missed is sent */
    post: operations['postV1WebhooksEndpointsEndpointIdEnable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/images/generations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Generate or edit images synchronously */
    post: operations['postV1ImagesGenerations'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/images/edits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Edit images given as files (the OpenAI multipart endpoint) */
    post: operations['postV1ImagesEdits'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List models */
    get: operations['getV1Models'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A model with its capabilities, parameters and price */
    get: operations['getV1ModelsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/register': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a registration: a 6-digit code is e-mailed */
    post: operations['postConsoleApiRegister'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/register/resend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send the code again (cool-down applies) */
    post: operations['postConsoleApiRegisterResend'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/register/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Confirm the code: creates the account, its default key and a session */
    post: operations['postConsoleApiRegisterVerify'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Open a console session */
    post: operations['postConsoleApiLogin'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** End the session */
    post: operations['postConsoleApiLogout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The signed-in account */
    get: operations['getConsoleApiMe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who is signed in: 200 with signed_in false without a session */
    get: operations['getConsoleApiSession'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's keys */
    get: operations['getConsoleApiTokens'];
    put?: never;
    /** Create a key (shown once) */
    post: operations['postConsoleApiTokens'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/tokens/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Delete a key */
    delete: operations['deleteConsoleApiTokensId'];
    options?: never;
    head?: never;
    /** Rename, disable, enable, or change limits */
    patch: operations['patchConsoleApiTokensId'];
    trace?: never;
  };
  '/console/api/usage/summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Spend and calls per day and model over the last days */
    get: operations['getConsoleApiUsageSummary'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/balance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Balance */
    get: operations['getConsoleApiBalance'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/ledger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Ledger, newest first */
    get: operations['getConsoleApiLedger'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Usage log of billed calls, newest first */
    get: operations['getConsoleApiUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/password/forgot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Mail a password reset code (202 whether or not the address has an account) */
    post: operations['postConsoleApiPasswordForgot'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/password/reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Set a new password with the e-mailed code; every session of the account ends; with revoke_keys, every API key is deleted too */
    post: operations['postConsoleApiPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/password/change': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Change the password (the current one is needed); other sessions end; with revoke_keys, every API key is deleted too */
    post: operations['postConsoleApiPasswordChange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The catalog with what one call of each model costs */
    get: operations['getConsoleApiModels'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/quickstart': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What a first call needs: base URL, test credit and the call it pays for */
    get: operations['getConsoleApiQuickstart'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/videos/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-Sent Events: every move of the account's tasks (event `task`, the task object), `ready` once open, `resync` now and then */
    get: operations['getConsoleApiVideosEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/videos': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's video tasks, newest first, searchable */
    get: operations['getConsoleApiVideos'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/videos/{taskId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A video task with its media state, cost and key */
    get: operations['getConsoleApiVideosTaskId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/videos': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a video task from the console, as the account's playground key: billed and limited like POST /v1/videos */
    post: operations['postConsoleApiPlaygroundVideos'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/videos/{taskId}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-Sent Events of one of the account's tasks on the console session, as GET /v1/videos/{id}/events streams them */
    get: operations['getConsoleApiPlaygroundVideosTaskIdEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/images/generations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Generate images from the console, as the account's playground key: billed and limited like POST /v1/images/generations */
    post: operations['postConsoleApiPlaygroundImagesGenerations'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/images/edits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Edit images from the console, as the account's playground key: billed and limited like POST /v1/images/edits */
    post: operations['postConsoleApiPlaygroundImagesEdits'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/images/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A playground image its host keeps, by the download link of its answer, as an attachment */
    get: operations['getConsoleApiPlaygroundImagesDownload'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/uploads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account’s uploads still served (not deleted, not expired), newest first, at most 100 */
    get: operations['getConsoleApiPlaygroundUploads'];
    put?: never;
    /** Upload an image for a video's input (multipart field `file`); it is served at an unguessable URL until it expires */
    post: operations['postConsoleApiPlaygroundUploads'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/playground/uploads/{uploadId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Delete one of the account’s uploads now */
    delete: operations['deleteConsoleApiPlaygroundUploadsUploadId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/videos/{taskId}/callbacks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A task's callback deliveries and every attempt */
    get: operations['getConsoleApiVideosTaskIdCallbacks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/videos/{taskId}/callbacks/{deliveryId}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a callback delivery again now */
    post: operations['postConsoleApiVideosTaskIdCallbacksDeliveryIdRedeliver'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The whsec_ signing secret */
    get: operations['getConsoleApiWebhooksSecret'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/secret/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Rotate the signing secret (the old one also signs for 24 hours) */
    post: operations['postConsoleApiWebhooksSecretRotate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Which events callbacks carry */
    get: operations['getConsoleApiWebhooksSettings'];
    put?: never;
    /** Opt in or out of video.processing events */
    post: operations['postConsoleApiWebhooksSettings'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/endpoints': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Callback endpoints that failed, and whether they are disabled */
    get: operations['getConsoleApiWebhooksEndpoints'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/endpoints/{endpointId}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable a disabled endpoint: what it missed is sent */
    post: operations['postConsoleApiWebhooksEndpointsEndpointIdEnable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/webhooks/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a signed webhook.test event to a URL now and show the answer */
    post: operations['postConsoleApiWebhooksTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/topups/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How the account can top up: QR providers, rate, minimum, bonus, bank transfer details */
    get: operations['getConsoleApiTopupsOptions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/topups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's top-ups, newest first */
    get: operations['getConsoleApiTopups'];
    put?: never;
    /** Start a QR-code top-up in CNY (Alipay or WeChat Pay); returns the QR content */
    post: operations['postConsoleApiTopups'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/topups/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A top-up and its status (created, paid, credited, closed, expired, cancelled) */
    get: operations['getConsoleApiTopupsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/api/topups/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel an unpaid top-up: closed at the provider; it no longer counts among open orders */
    post: operations['postConsoleApiTopupsIdCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List and find accounts */
    get: operations['getAdminApiAccounts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account */
    get: operations['getAdminApiAccountsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/disable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Disable an account */
    post: operations['postAdminApiAccountsIdDisable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable an account */
    post: operations['postAdminApiAccountsIdEnable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Per-account rate and concurrency limits */
    patch: operations['patchAdminApiAccountsIdLimits'];
    trace?: never;
  };
  '/admin/api/accounts/{id}/topups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's QR top-ups, newest first, or one of them */
    get: operations['getAdminApiAccountsIdTopups'];
    put?: never;
    /** Credit a bank transfer received in CNY (idempotent per reference) */
    post: operations['postAdminApiAccountsIdTopups'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/adjustments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Adjust a balance, with a reason */
    post: operations['postAdminApiAccountsIdAdjustments'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/tasks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Find tasks by status, age, model or account */
    get: operations['getAdminApiTasks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/tasks/{taskId}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a failed task again as a new task */
    post: operations['postAdminApiTasksTaskIdRetry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/ledger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's ledger, newest first */
    get: operations['getAdminApiAccountsIdLedger'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's API keys (never their secrets) */
    get: operations['getAdminApiAccountsIdKeys'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/tasks/{taskId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One task of any account, with its account */
    get: operations['getAdminApiTasksTaskId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/tasks/{taskId}/callbacks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One task's callback deliveries and their attempts */
    get: operations['getAdminApiTasksTaskIdCallbacks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/transfer-references/{reference}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account a bank-transfer memo's reference belongs to */
    get: operations['getAdminApiTransferReferencesReference'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/topups/{id}/refund': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Refund a paid QR top-up through its provider */
    post: operations['postAdminApiTopupsIdRefund'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/topup-refunds': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Refunds of every top-up in one state (held: waiting for an operator), newest first */
    get: operations['getAdminApiTopupRefunds'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/topups/{id}/refunds': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A top-up's refunds, oldest first */
    get: operations['getAdminApiTopupsIdRefunds'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/queues': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Queues with their depth by state */
    get: operations['getAdminApiQueues'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/queues/{name}/pause': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Pause a queue */
    post: operations['postAdminApiQueuesNamePause'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/queues/{name}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resume a queue */
    post: operations['postAdminApiQueuesNameResume'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/audit-log': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Operators' actions, newest first */
    get: operations['getAdminApiAuditLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/webhook-endpoints': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Disabled callback endpoints of every account, or one account's endpoints */
    get: operations['getAdminApiWebhookEndpoints'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api/accounts/{id}/webhook-endpoints/{endpointId}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable a customer's disabled endpoint (audited): what it missed is sent */
    post: operations['postAdminApiAccountsIdWebhookEndpointsEndpointIdEnable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/payments/alipay/notify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Alipay's asynchronous notification (form, RSA2-signed); answered with the text success */
    post: operations['postPaymentsAlipayNotify'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/payments/wechat/notify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** WeChat Pay's payment notification (signed, resource encrypted); 204 when accepted */
    post: operations['postPaymentsWechatNotify'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/payments/{provider}/notify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A payment provider's signed notification (credited once per payment reference) */
    post: operations['postPaymentsProviderNotify'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Error: {
      error: {
        message: string;
        /** @description invalid_request_error, authentication_error, insufficient_quota, ... */
        type: string;
        /** @description invalid_request, invalid_api_key, insufficient_quota, model_not_found, ... */
        code: string;
        param?: string | null;
      };
    };
    Health: {
      status: string;
    } & {
      [key: string]: unknown;
    };
    VideoTask: {
      /** @description task_ + ULID */
      id: string;
      /** @description the same as id */
      task_id: string;
      /** @constant */
      object: 'video';
      model: string;
      /** @description the prompt the task was created with */
      prompt: string;
      /** @enum {string} */
      status: 'pending' | 'processing' | 'succeeded' | 'failed';
      progress: number;
      /** @description Unix seconds */
      created_at: number;
      /** @description Unix seconds */
      updated_at: number;
      completed_at: number | null;
      /** @description an unfinished task: when it will likely finish, from the durations learned for its model; null while unknown */
      estimated_completion_at?: number | null;
      /** @description present when succeeded and until expires_at: a signed link of the gateway, no key needed */
      video_url?: string;
      /** @description the first frame (JPEG), signed like video_url */
      thumbnail_url?: string;
      /** @description succeeded tasks: when the links stop working */
      expires_at?: number | null;
      /** @description present when failed */
      error?: {
        code: string;
        message: string;
      };
      metadata: {
        [key: string]: unknown;
      };
    };
    VideoTaskList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['VideoTask'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    VideoDeleted: {
      id: string;
      /** @constant */
      object: 'video.deleted';
      /** @constant */
      deleted: true;
    };
    CallbackDeliveryList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['CallbackDelivery'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    CallbackDelivery: {
      id: string;
      /** @constant */
      object: 'video.callback';
      task_id: string;
      event_type: string;
      url: string;
      status: string;
      attempt_count: number;
      attempts: ({
        attempt: number;
        started_at: number | null;
        status_code: number | null;
        latency_ms: number | null;
        error: string | null;
      } & {
        [key: string]: unknown;
      })[];
    } & {
      [key: string]: unknown;
    };
    WebhookSecret: {
      object?: string;
      /** @description whsec_... */
      secret: string;
      created_at: number | null;
      rotated_at: number | null;
      previous_secret_expires_at: number | null;
    } & {
      [key: string]: unknown;
    };
    WebhookSettings: {
      object?: string;
      video_processing: boolean;
      events: string[];
    } & {
      [key: string]: unknown;
    };
    WebhookEndpointList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['WebhookEndpoint'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    WebhookEndpoint: {
      /** @constant */
      object: 'webhook_endpoint';
      /** @description ep_... */
      id: string;
      /** @description scheme, host, port and path of the callback URLs it stands for (no query) */
      url: string;
      /** @enum {string} */
      status: 'enabled' | 'disabled';
      /** @description every delivery has failed for good since failing_since */
      failing: boolean;
      failing_since: number | null;
      last_failure_at: number | null;
      last_error: string | null;
      disabled_at: number | null;
      disabled_reason: string | null;
      /** @description deliveries kept while disabled: sent when it is enabled */
      held_deliveries: number;
      enabled_at: number | null;
    } & {
      [key: string]: unknown;
    };
    EnabledWebhookEndpoint: {
      object?: string;
      endpoint: components['schemas']['WebhookEndpoint'];
      /** @description deliveries sent again: those held while disabled and those that failed */
      redelivered: number;
    } & {
      [key: string]: unknown;
    };
    ImagesResponse: {
      /** @description Unix seconds */
      created: number;
      data: {
        url?: string;
        b64_json?: string;
      }[];
      usage?: {
        [key: string]: unknown;
      };
      /** @description images asked for */
      requested?: number;
      /** @description images delivered (and billed) */
      delivered?: number;
    } & {
      [key: string]: unknown;
    };
    ModelList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['Model'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    Model: {
      id: string;
      /** @constant */
      object: 'model';
      /** @description Unix seconds */
      created: number;
      owned_by: string;
    } & {
      [key: string]: unknown;
    };
    RegistrationAccepted: {
      object?: string;
      email: string;
      status: string;
      /** @description seconds the code is valid */
      expires_in: number;
      /** @description seconds before another code can be asked for */
      resend_in: number;
    } & {
      [key: string]: unknown;
    };
    Registered: {
      object?: string;
      id: string;
      email: string;
      balance_usd: number;
      balance_micro_usd: number;
      api_key: {
        id: string;
        name: string;
        key: string;
        display_prefix: string;
      };
      session: {
        token: string;
        /** @description Unix seconds */
        expires_at: number;
      };
    } & {
      [key: string]: unknown;
    };
    Session: {
      object?: string;
      token: string;
      /** @description Unix seconds */
      expires_at: number;
      account_id: string;
      /** @enum {string} */
      role: 'user' | 'admin';
    } & {
      [key: string]: unknown;
    };
    LoggedOut: {
      object?: string;
    } & {
      [key: string]: unknown;
    };
    Account: {
      object?: string;
      id: string;
      email: string;
      /** @enum {string} */
      status: 'active' | 'disabled';
      /** @enum {string} */
      role: 'user' | 'admin';
      balance_usd: number;
      balance_micro_usd: number;
      limits: {
        rpm: number | null;
        max_active_video_tasks: number | null;
      };
      created_at: number | null;
    } & {
      [key: string]: unknown;
    };
    SessionState: {
      /** @constant */
      object: 'session_state';
      signed_in: boolean;
      /** @description the signed-in account; null when signed_in is false */
      account: components['schemas']['Account'] | null;
    } & {
      [key: string]: unknown;
    };
    CreatedToken: {
      object?: string;
      id: string;
      name: string;
      display_prefix: string;
      /** @enum {string} */
      status: 'active' | 'disabled' | 'deleted';
      quota_usd: number | null;
      quota_micro_usd: number | null;
      used_usd: number;
      used_micro_usd: number;
      expires_at: number | null;
      allowed_models: string[] | null;
      allowed_ips: string[] | null;
      created_at: number | null;
      last_used_at: number | null;
      /** @description the sk- key; in this answer only */
      key: string;
    } & {
      [key: string]: unknown;
    };
    TokenList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['Token'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    Token: {
      object?: string;
      id: string;
      name: string;
      display_prefix: string;
      /** @enum {string} */
      status: 'active' | 'disabled' | 'deleted';
      quota_usd: number | null;
      quota_micro_usd: number | null;
      used_usd: number;
      used_micro_usd: number;
      expires_at: number | null;
      allowed_models: string[] | null;
      allowed_ips: string[] | null;
      created_at: number | null;
      last_used_at: number | null;
    } & {
      [key: string]: unknown;
    };
    DeletedToken: {
      /** @constant */
      object: 'token';
      id: string;
      /** @constant */
      deleted: true;
    } & {
      [key: string]: unknown;
    };
    UsageSummary: {
      object?: string;
      days: number;
      time_zone: string;
      /** @description Unix seconds */
      since: number;
      data: {
        /** @description YYYY-MM-DD in time_zone */
        day: string;
        model: string | null;
        calls: number;
        spent_usd: number;
        spent_micro_usd: number;
      }[];
    } & {
      [key: string]: unknown;
    };
    Balance: {
      object?: string;
      balance_usd: number;
      balance_micro_usd: number;
    } & {
      [key: string]: unknown;
    };
    LedgerPage: {
      /** @constant */
      object: 'list';
      data: components['schemas']['LedgerEntry'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    LedgerEntry: {
      object?: string;
      id: string;
      /** @enum {string} */
      kind: 'grant' | 'topup' | 'bonus' | 'charge' | 'refund' | 'adjustment';
      amount_usd: number;
      amount_micro_usd: number;
      ref: string | null;
      /** @description English text, for older readers; `details` says the same in fields, for any language */
      reason: string | null;
      /** @description what the entry is; null for an entry from before details whose text could not be read */
      details: components['schemas']['LedgerDetails'] | null;
      created_at: number | null;
    } & {
      [key: string]: unknown;
    };
    LedgerDetails:
      | {
          /** @constant */
          cause: 'signup_credit';
        }
      | {
          /** @constant */
          cause: 'initial_credit';
        }
      | {
          /** @constant */
          cause: 'operator_grant';
        }
      | {
          /** @constant */
          cause: 'payment';
          provider: string;
          /** @description the provider's order (top_...) or the transfer's reference */
          reference: string;
          /** @description the amount the payer paid: yuan in fen, or dollars in micro-USD */
          paid:
            | {
                /** @constant */
                currency: 'CNY';
                amount_fen: number;
              }
            | {
                /** @constant */
                currency: 'USD';
                amount_micro_usd: number;
              };
        }
      | {
          /** @constant */
          cause: 'video_task';
          /** @description the call's model, from its usage record */
          model: string | null;
        }
      | {
          /** @constant */
          cause: 'image_call';
          /** @description the call's model, from its usage record */
          model: string | null;
          /** @description images requested */
          units: number | null;
        }
      | {
          /** @constant */
          cause: 'task_failed';
          /** @description the call's model, from its usage record */
          model: string | null;
          error_code: string;
        }
      | {
          /** @constant */
          cause: 'images_not_delivered';
          /** @description the call's model, from its usage record */
          model: string | null;
          missing: number;
          requested: number;
        }
      | {
          /** @constant */
          cause: 'image_call_failed';
          /** @description the call's model, from its usage record */
          model: string | null;
        }
      | {
          /** @constant */
          cause: 'unsettled';
          /** @description the call's model, from its usage record */
          model: string | null;
          after_s: number;
        }
      | {
          /** @constant */
          cause: 'usage_settlement';
          /** @description the call's model, from its usage record */
          model: string | null;
          quoted_micro_usd: number;
          actual_micro_usd: number;
          duration_s: number;
          resolution: string;
          audio: boolean;
        }
      | {
          /** @constant */
          cause: 'topup_refund';
          provider: string;
          order_id: string | null;
          refund_fen: number;
          topup_fen: number;
        }
      | {
          /** @constant */
          cause: 'operator';
          /** @description the operator's own words */
          note: string;
        };
    UsagePage: {
      /** @constant */
      object: 'list';
      data: components['schemas']['UsageRecord'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    UsageRecord: {
      object?: string;
      id: string;
      created_at: number | null;
      ref: string;
      token: {
        id: string;
        name: string | null;
        display_prefix: string | null;
      } | null;
      model: string | null;
      units: number;
      cost_usd: number;
      cost_micro_usd: number;
      refunded_usd: number;
      refunded_micro_usd: number;
      outcome: string;
      /** @description the call's answer time; for a video task, its create call's (see video.processing_ms) */
      latency_ms: number | null;
      /** @description a video task's row: the video it stands for (units is 1) and how long the task took */
      video: {
        duration_s: number | null;
        resolution: string | null;
        /** @description from the task start to its end; null until it ends */
        processing_ms: number | null;
      } | null;
    } & {
      [key: string]: unknown;
    };
    PasswordResetRequested: {
      object?: string;
      email: string;
      status: string;
      expires_in: number;
    } & {
      [key: string]: unknown;
    };
    PasswordReset: {
      object?: string;
      status: string;
      sessions_ended: boolean;
      /** @description API keys deleted (revoke_keys) */
      keys_revoked: number;
    } & {
      [key: string]: unknown;
    };
    PasswordChanged: {
      object?: string;
      status: string;
      other_sessions_ended: boolean;
      /** @description API keys deleted (revoke_keys) */
      keys_revoked: number;
    } & {
      [key: string]: unknown;
    };
    ConsoleModelList: {
      /** @constant */
      object: 'list';
      data: {
        /** @constant */
        object: 'model';
        id: string;
        /** @enum {string} */
        type: 'image' | 'video';
        endpoints: string[];
        /** @description the call needs an input image (image-to-video, editing) */
        needs_image: boolean;
        duration_seconds: number | null;
        resolution: string | null;
        /** @description sizes to offer for an image model's `size` (its named sizes first); empty: it takes no size */
        sizes: string[];
        /** @description the most images one call may ask for (`n`); 1 for a video model */
        max_n: number;
        /** @description the most input images a call takes (0: from text only) */
        max_input_images: number;
        /**
         * @description what price_usd pays for: one image, or one video task
         * @enum {string}
         */
        unit: 'image' | 'task';
        /** @description list price of one image, or of one video task with sound */
        price_usd: number;
        /** @description a silent video task, when the model can be silent */
        silent_price_usd: number | null;
      }[];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    ConsoleQuickstart: {
      /** @description the base URL an OpenAI client is given */
      base_url: string;
      docs_url: string;
      /** @description the credit a new account gets at sign-up */
      test_credit_usd: number;
      /** @description the cheapest call that makes something (an image from a prompt) within the test credit */
      connectivity_check: {
        model: string;
        price_usd: number;
        /** @description how many such calls the test credit pays for */
        calls: number;
      } | null;
      cheapest_video_usd: number | null;
    };
    ConsoleVideoTaskList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['ConsoleVideoTask'][];
      has_more: boolean;
      first_id: string | null;
      last_id: string | null;
    };
    ConsoleVideoTask: {
      /** @description task_ + ULID */
      id: string;
      /** @description the same as id */
      task_id: string;
      /** @constant */
      object: 'video';
      model: string;
      /** @description the prompt the task was created with */
      prompt: string;
      /** @enum {string} */
      status: 'pending' | 'processing' | 'succeeded' | 'failed';
      progress: number;
      /** @description Unix seconds */
      created_at: number;
      /** @description Unix seconds */
      updated_at: number;
      completed_at: number | null;
      /** @description an unfinished task: when it will likely finish, from the durations learned for its model; null while unknown */
      estimated_completion_at?: number | null;
      /** @description present when succeeded and until expires_at: a signed link of the gateway, no key needed */
      video_url?: string;
      /** @description the first frame (JPEG), signed like video_url */
      thumbnail_url?: string;
      /** @description succeeded tasks: when the links stop working */
      expires_at?: number | null;
      /** @description present when failed */
      error?: {
        code: string;
        message: string;
      };
      metadata: {
        [key: string]: unknown;
      };
      /** @description the kept video: pending (not copied yet; video_url still plays the vendor's file), stored, failed (copy failed; the vendor's file plays while it lives), expired, deleted; null until the task succeeds */
      media_status: ('pending' | 'stored' | 'failed' | 'expired' | 'deleted') | null;
      media_deleted_at: number | null;
      /** @description what the task was charged (micro-USD) */
      charged_micro_usd: number | null;
      /** @description what was given back (micro-USD) */
      refunded_micro_usd: number;
      /** @description the key that created the task (null once the key is deleted) */
      api_key: {
        id: string;
        name: string;
        prefix: string;
      } | null;
    };
    PlaygroundImagesResponse: {
      /** @description Unix seconds */
      created: number;
      data: {
        url?: string;
        b64_json?: string;
        /** @description with url: /console/api/playground/images/download?…, the image as an attachment (this session only) */
        download_url?: string;
      }[];
      usage?: {
        [key: string]: unknown;
      };
      /** @description images asked for */
      requested?: number;
      /** @description images delivered (and billed) */
      delivered?: number;
    } & {
      [key: string]: unknown;
    };
    PlaygroundUpload: {
      /** @constant */
      object: 'playground.upload';
      id: string;
      /** @description where the image is served without credentials until expires_at (a video’s img_url) */
      url: string;
      /** @enum {string} */
      content_type: 'image/png' | 'image/jpeg' | 'image/webp';
      bytes: number;
      /** @description Unix seconds */
      expires_at: number;
    };
    PlaygroundUploadList: {
      /** @constant */
      object: 'list';
      data: {
        /** @constant */
        object: 'playground.upload';
        id: string;
        /** @description where the image is served without credentials until expires_at (a video’s img_url) */
        url: string;
        /** @enum {string} */
        content_type: 'image/png' | 'image/jpeg' | 'image/webp';
        bytes: number;
        /** @description Unix seconds */
        expires_at: number;
        /** @description Unix seconds */
        created_at: number;
      }[];
    };
    PlaygroundUploadDeleted: {
      id: string;
      /** @constant */
      object: 'playground.upload.deleted';
      /** @constant */
      deleted: true;
    };
    WebhookTestResult: {
      object?: string;
      id: string;
      url: string;
      delivered: boolean;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
      response_body: string | null;
    } & {
      [key: string]: unknown;
    };
    TopUpOptions: {
      object?: string;
      providers: ('alipay' | 'wechat')[];
      cny_per_usd: number;
      min_amount_cny: number;
      bonus_threshold_cny: number;
      bonus_percent: number;
      bank_transfer: {
        reference: string;
        beneficiary: string | null;
        bank: string | null;
        account_number: string | null;
        /** @description how to reach us about payments (PAYMENTS_CONTACT: an e-mail address or a URL), null when unset */
        contact: string | null;
      };
    } & {
      [key: string]: unknown;
    };
    TopUp: {
      /** @constant */
      object: 'topup';
      id: string;
      /**
       * @description created: payable; paid: paid another amount, waits for an operator; credited; closed: refused by the provider; expired; cancelled: by its owner (a payment still made with its code is credited: the status then becomes credited)
       * @enum {string}
       */
      status: 'created' | 'paid' | 'credited' | 'closed' | 'expired' | 'cancelled';
      /** @enum {string} */
      provider: 'alipay' | 'wechat';
      amount_cny: number;
      credit_usd: number;
      bonus_usd: number;
      /** @description what the provider refunded of the payment so far (the refunded share of the credit was taken back) */
      refunded_cny: number;
      /** @enum {string} */
      channel: 'qr' | 'mobile';
      /** @description the content to render as a QR code (channel qr) */
      qr_code: string | null;
      /** @description the URL to open in the phone's browser to pay (channel mobile); it returns to the console */
      pay_url: string | null;
      expires_at: number;
      created_at: number;
      paid_at: number | null;
      credited_at: number | null;
      cancelled_at: number | null;
    } & {
      [key: string]: unknown;
    };
    TopUpList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['TopUp'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    AccountList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['Account'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    BankTransferTopUp: {
      /** @constant */
      object: 'topup';
      payment_id: string;
      account_id: string;
      /** @constant */
      provider: 'bank_transfer';
      reference: string;
      /** @description false: this reference was credited before */
      credited: boolean;
      /** @description what the bank received */
      amount_cny: number;
      /** @description the credit it bought, at TOPUP_CNY_PER_USD */
      amount_usd: number;
      bonus_usd: number;
    } & {
      [key: string]: unknown;
    };
    Adjustment: {
      /** @constant */
      object: 'adjustment';
      account_id: string;
      /** @description false: this reference was applied before */
      applied: boolean;
      amount_usd: number;
      balance_usd: number;
      balance_micro_usd: number;
    } & {
      [key: string]: unknown;
    };
    AdminTaskList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['AdminTask'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    AdminTask: {
      /** @description task_ + ULID */
      id: string;
      /** @description the same as id */
      task_id: string;
      /** @constant */
      object: 'video';
      model: string;
      /** @description the prompt the task was created with */
      prompt: string;
      /** @enum {string} */
      status: 'pending' | 'processing' | 'succeeded' | 'failed';
      progress: number;
      /** @description Unix seconds */
      created_at: number;
      /** @description Unix seconds */
      updated_at: number;
      completed_at: number | null;
      /** @description an unfinished task: when it will likely finish, from the durations learned for its model; null while unknown */
      estimated_completion_at?: number | null;
      /** @description present when succeeded and until expires_at: a signed link of the gateway, no key needed */
      video_url?: string;
      /** @description the first frame (JPEG), signed like video_url */
      thumbnail_url?: string;
      /** @description succeeded tasks: when the links stop working */
      expires_at?: number | null;
      /** @description present when failed */
      error?: {
        code: string;
        message: string;
      };
      metadata: {
        [key: string]: unknown;
      };
      account_id: string;
      /** @description the account's e-mail (null: the account is gone) */
      account_email: string | null;
      upstream_task_id: string | null;
      upstream_channel: string | null;
    };
    BankTransferReference: {
      object?: string;
      reference: string;
      account: components['schemas']['Account'];
    } & {
      [key: string]: unknown;
    };
    TopUpRefund: {
      /** @constant */
      object: 'topup_refund';
      /** @description also the merchant refund number sent to the provider */
      id: string;
      topup_id: string;
      account_id: string;
      /** @enum {string} */
      provider: 'alipay' | 'wechat';
      /**
       * @description provider: made in the merchant portal, learnt from its notification
       * @enum {string}
       */
      origin: 'operator' | 'provider';
      /**
       * @description held: the provider reported it for more than is left of the payment; nothing was debited, an operator settles it
       * @enum {string}
       */
      status: 'pending' | 'succeeded' | 'failed' | 'held';
      amount_cny: number;
      /** @description the credit taken back from the balance */
      debit_usd: number;
      debit_micro_usd: number;
      /** @description the refunded share of the credit the balance could not cover (already spent) */
      uncovered_usd: number;
      uncovered_micro_usd: number;
      reason: string | null;
      /** @description the provider's reason for a failed refund; what was reported for a held one */
      failure: string | null;
      provider_refund_id: string | null;
      created_at: number;
      succeeded_at: number | null;
    } & {
      [key: string]: unknown;
    };
    TopUpRefundList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['TopUpRefund'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    QueueList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['QueueState'][];
      has_more?: boolean;
      first_id?: string | null;
      last_id?: string | null;
    };
    QueueState: {
      object?: string;
      name: string;
      paused: boolean;
    } & {
      [key: string]: unknown;
    };
    AuditLog: {
      /** @constant */
      object: 'list';
      data: components['schemas']['AuditEntry'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    AuditEntry: {
      /** @constant */
      object: 'audit_entry';
      id: string;
      /** @description unix seconds */
      at: number;
      operator: {
        id: string;
        email: string;
      };
      /** @enum {string} */
      action:
        | 'account.disable'
        | 'account.enable'
        | 'account.limits'
        | 'account.topup'
        | 'account.adjustment'
        | 'topup.refund'
        | 'topup.refund_outcome'
        | 'task.retry'
        | 'queue.pause'
        | 'queue.resume'
        | 'webhook_endpoint.enable';
      account_id: string | null;
      /** @description the account's e-mail (null: no account, or it is gone) */
      account_email: string | null;
      /** @enum {string} */
      target_type: 'account' | 'task' | 'queue' | 'webhook_endpoint' | 'topup';
      target_id: string;
      /** @description the changed values before the action (API names and units) */
      before: {
        [key: string]: unknown;
      } | null;
      /** @description the same values after it */
      after: {
        [key: string]: unknown;
      } | null;
      reason: string | null;
      request_id: string | null;
    };
    AdminWebhookEndpointList: {
      /** @constant */
      object: 'list';
      data: components['schemas']['AdminWebhookEndpoint'][];
      has_more: boolean;
      /** @description pass as `before` for the next page */
      next_cursor: string | null;
    };
    AdminWebhookEndpoint: {
      /** @constant */
      object: 'webhook_endpoint';
      /** @description ep_... */
      id: string;
      /** @description scheme, host, port and path of the callback URLs it stands for (no query) */
      url: string;
      /** @enum {string} */
      status: 'enabled' | 'disabled';
      /** @description every delivery has failed for good since failing_since */
      failing: boolean;
      failing_since: number | null;
      last_failure_at: number | null;
      last_error: string | null;
      disabled_at: number | null;
      disabled_reason: string | null;
      /** @description deliveries kept while disabled: sent when it is enabled */
      held_deliveries: number;
      enabled_at: number | null;
      account_id: string;
      account_email: string | null;
    } & {
      [key: string]: unknown;
    };
    WeChatPayFail: {
      /** @constant */
      code: 'FAIL';
      message: string;
    };
    PaymentNotificationResult: {
      /** @constant */
      object: 'payment';
      provider: string;
      reference: string;
      account_id: string;
      /** @description false: this payment reference was credited before */
      credited: boolean;
      amount_usd: number;
      bonus_usd: number;
    } & {
      [key: string]: unknown;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getHealthz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getReadyz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description not ready */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOpenapiJson: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 document */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getDocs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTML page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiOpenapiJson: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 document */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMediaUploadsFile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        file: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the image */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
        };
      };
      /** @description not modified (If-None-Match matches the ETag) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no such upload, or it has expired or was deleted */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMediaTaskIdFile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
        file: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the bytes (Range requests answer 206) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description the bytes of the requested Range */
      206: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description S3 driver: a presigned or CDN link; not copied yet: the vendor link */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description not modified (If-None-Match matches the ETag) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid_media_link */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description video_expired, video_deleted, thumbnail_unavailable */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1Videos: {
    parameters: {
      query?: {
        limit?: number;
        after?: string;
        status?: 'pending' | 'processing' | 'succeeded' | 'completed' | 'failed';
        order?: 'desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTaskList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1Videos: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          model: string;
          prompt: string;
          metadata: {
            input: {
              img_url: string;
              negative_prompt?: string;
              audio_url?: string;
            };
            parameters?: {
              resolution?: string;
              duration?: number;
              audio?: boolean;
              prompt_extend?: boolean;
              watermark?: boolean;
              seed?: number;
            };
            callback_url?: string;
          };
        };
        'multipart/form-data': {
          model: string;
          prompt: string;
          metadata: {
            input: {
              img_url: string;
              negative_prompt?: string;
              audio_url?: string;
            };
            parameters?: {
              resolution?: string;
              duration?: number;
              audio?: boolean;
              prompt_extend?: boolean;
              watermark?: boolean;
              seed?: number;
            };
            callback_url?: string;
          };
        };
      };
    };
    responses: {
      /** @description the task, pending (or the first task for a repeated Idempotency-Key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTask'];
        };
      };
      /** @description balance or key quota too low */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description unknown model */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with another body */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1VideosTaskId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTask'];
        };
      };
      /** @description no such task for this account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteV1VideosTaskId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoDeleted'];
        };
      };
      /** @description no such task for this account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the task is pending or processing */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1VideosTaskIdEvents: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an event stream: `id: <state number>` and `data: <the task object>` per event, comment lines as heartbeats */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description no such task for this account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description too many open event streams for this key, this account or this server */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosTaskIdCancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTask'];
        };
      };
      /** @description no longer cancelable */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description no task-query slot of the task's channel within 3 s (Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1VideosTaskIdContent: {
    parameters: {
      query?: {
        variant?: string;
      };
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the bytes (Range requests answer 206) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description the bytes of the requested Range */
      206: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description not copied yet: the vendor's link */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description not modified (If-None-Match matches the ETag) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description spritesheet or an unknown variant */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description no such task; video_not_ready, video_expired, video_deleted, thumbnail_unavailable */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosTaskIdRemix: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description unsupported_operation */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosEdits: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description unsupported_operation */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosExtensions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description unsupported_operation */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosCharacters: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description unsupported_operation */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1VideosCharactersCharacterId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        characterId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description unsupported_operation */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1VideosTaskIdCallbacks: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CallbackDeliveryList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1VideosTaskIdCallbacksDeliveryIdRedeliver: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description scheduled */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CallbackDelivery'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1WebhooksSecret: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecret'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1WebhooksSecretRotate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecret'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1WebhooksSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSettings'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1WebhooksSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          video_processing: boolean;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSettings'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1WebhooksEndpoints: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookEndpointList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1WebhooksEndpointsEndpointIdEnable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        endpointId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EnabledWebhookEndpoint'];
        };
      };
      /** @description no such endpoint */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1ImagesGenerations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          model: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description reference image URLs or data URLs */
          image?: string | string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, seedream-3.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description random seed; -1 picks one (seedream-3.0, qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
          /** @description how closely the image follows the prompt (seedream-3.0; see GET /v1/models/{id}) */
          guidance_scale?: number;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImagesResponse'];
        };
      };
      /** @description balance or key quota too low (before the body is read when it cannot pay for the cheapest image) */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the key may not use the model (or any image model) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description rate limited, or too many request bodies in flight for the account or the server (Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postV1ImagesEdits: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description defaults to the first image-edit model */
          model?: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description the image files to edit (in JSON: URLs or data URLs) */
          image: string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
          /** @description random seed (qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
        };
        'multipart/form-data': {
          /** @description defaults to the first image-edit model */
          model?: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description the image files to edit (in JSON: URLs or data URLs) */
          image: string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
          /** @description random seed (qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImagesResponse'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1Models: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ModelList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getV1ModelsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Model'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiRegister: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description OK */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RegistrationAccepted'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiRegisterResend: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
        };
      };
    };
    responses: {
      /** @description OK */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RegistrationAccepted'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiRegisterVerify: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
          code: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description OK */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Registered'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiLogin: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Session'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiLogout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LoggedOut'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionState'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TokenList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          quota_usd?: number | null;
          expires_at?: number | null;
          allowed_models?: string[] | null;
          allowed_ips?: string[] | null;
        };
      };
    };
    responses: {
      /** @description OK */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedToken'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteConsoleApiTokensId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeletedToken'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchConsoleApiTokensId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name?: string;
          /** @enum {string} */
          status?: 'active' | 'disabled';
          quota_usd?: number | null;
          expires_at?: number | null;
          allowed_models?: string[] | null;
          allowed_ips?: string[] | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Token'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiUsageSummary: {
    parameters: {
      query?: {
        days?: number;
        tz?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageSummary'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiBalance: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Balance'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiLedger: {
    parameters: {
      query?: {
        limit?: number;
        before?: string;
        kind?: 'grant' | 'topup' | 'bonus' | 'charge' | 'refund' | 'adjustment';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LedgerPage'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiUsage: {
    parameters: {
      query?: {
        limit?: number;
        before?: string;
        model?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsagePage'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPasswordForgot: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
        };
      };
    };
    responses: {
      /** @description OK */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasswordResetRequested'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
          code: string;
          password: string;
          /**
           * @description also delete every API key of the account (for an account someone else may have used: keys they made stop at once); default false: keys keep working
           * @default false
           */
          revoke_keys?: boolean;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasswordReset'];
        };
      };
      /** @description wrong or expired code */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPasswordChange: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          current_password: string;
          new_password: string;
          /**
           * @description also delete every API key of the account (for an account someone else may have used: keys they made stop at once); default false: keys keep working
           * @default false
           */
          revoke_keys?: boolean;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasswordChanged'];
        };
      };
      /** @description wrong current password */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiModels: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsoleModelList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiQuickstart: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsoleQuickstart'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiVideosEvents: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an event stream; comment lines as heartbeats */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description too many open live pages for this account */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiVideos: {
    parameters: {
      query?: {
        limit?: number;
        after?: string;
        status?: 'pending' | 'processing' | 'succeeded' | 'failed';
        id?: string;
        key_id?: string;
        model?: string;
        created_from?: string;
        created_to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsoleVideoTaskList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiVideosTaskId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsoleVideoTask'];
        };
      };
      /** @description no such task */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPlaygroundVideos: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          model: string;
          prompt: string;
          metadata: {
            input: {
              img_url: string;
              negative_prompt?: string;
              audio_url?: string;
            };
            parameters?: {
              resolution?: string;
              duration?: number;
              audio?: boolean;
              prompt_extend?: boolean;
              watermark?: boolean;
              seed?: number;
            };
            callback_url?: string;
          };
        };
      };
    };
    responses: {
      /** @description the task, pending */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTask'];
        };
      };
      /** @description balance too low */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the playground key is disabled */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description unknown model */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the account holds the most keys it may, and the playground needs one */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description over the key's requests per minute */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiPlaygroundVideosTaskIdEvents: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an event stream: `id: <state number>` and `data: <the task object>` per event */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description the playground key is disabled */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description no such task for this account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description too many open event streams */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPlaygroundImagesGenerations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          model: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description reference image URLs or data URLs */
          image?: string | string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, seedream-3.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description random seed; -1 picks one (seedream-3.0, qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
          /** @description how closely the image follows the prompt (seedream-3.0; see GET /v1/models/{id}) */
          guidance_scale?: number;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
        };
      };
    };
    responses: {
      /** @description the images, each hosted one with its download link */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlaygroundImagesResponse'];
        };
      };
      /** @description balance too low */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the playground key is disabled, or may not use the model */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description unknown model */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the account holds the most keys it may, and the playground needs one */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description over the key's requests per minute */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPlaygroundImagesEdits: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description defaults to the first image-edit model */
          model?: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description the image files to edit (in JSON: URLs or data URLs) */
          image: string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
          /** @description random seed (qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
        };
        'multipart/form-data': {
          /** @description defaults to the first image-edit model */
          model?: string;
          prompt: string;
          n?: number;
          /** @description WxH, or a named size (1K/2K/4K) where the model offers them; "auto" */
          size?: string;
          /** @enum {string} */
          response_format?: 'url' | 'b64_json';
          /** @description the image files to edit (in JSON: URLs or data URLs) */
          image: string[];
          /** @description accepted and ignored */
          user?: string;
          /** @constant */
          stream?: false;
          /** @enum {string} */
          sequential_image_generation?: 'auto' | 'disabled';
          sequential_image_generation_options?: {
            max_images?: number;
          };
          /** @description add the vendor watermark (Seedream defaults to true) (seedream-4.5, seedream-4.0, qwen-image-edit; see GET /v1/models/{id}) */
          watermark?: boolean;
          /** @description what the image should not show (qwen-image-edit; see GET /v1/models/{id}) */
          negative_prompt?: string;
          /** @description random seed (qwen-image-edit; see GET /v1/models/{id}) */
          seed?: number;
        };
      };
    };
    responses: {
      /** @description the images, each hosted one with its download link */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlaygroundImagesResponse'];
        };
      };
      /** @description balance too low */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the playground key is disabled, or may not use the model */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description unknown model */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the account holds the most keys it may, and the playground needs one */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description over the key's requests per minute */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiPlaygroundImagesDownload: {
    parameters: {
      query?: {
        url?: string;
        exp?: string;
        sig?: string;
        name?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the image (PNG, JPEG or WebP) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
        };
      };
      /** @description invalid_media_link: not a link made for this account */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the link expired, or the host no longer keeps the image */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the host could not be reached */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiPlaygroundUploads: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlaygroundUploadList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiPlaygroundUploads: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'multipart/form-data': {
          /**
           * Format: binary
           * @description a PNG, JPEG or WebP image
           */
          file: string;
        };
      };
    };
    responses: {
      /** @description the upload, with the URL to give as metadata.input.img_url */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlaygroundUpload'];
        };
      };
      /** @description no file, or not a PNG, JPEG or WebP image */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the balance does not cover the cheapest video */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the playground key is disabled */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the image is over PLAYGROUND_UPLOAD_MAX_BYTES */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description over the key's requests per minute, or the account's uploads a day (Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteConsoleApiPlaygroundUploadsUploadId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        uploadId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlaygroundUploadDeleted'];
        };
      };
      /** @description no such upload of this account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiVideosTaskIdCallbacks: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CallbackDeliveryList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiVideosTaskIdCallbacksDeliveryIdRedeliver: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description scheduled */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CallbackDelivery'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiWebhooksSecret: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecret'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiWebhooksSecretRotate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecret'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiWebhooksSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSettings'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiWebhooksSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          video_processing: boolean;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSettings'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiWebhooksEndpoints: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookEndpointList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiWebhooksEndpointsEndpointIdEnable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        endpointId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EnabledWebhookEndpoint'];
        };
      };
      /** @description no such endpoint */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiWebhooksTest: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          url: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookTestResult'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiTopupsOptions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpOptions'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiTopups: {
    parameters: {
      query?: {
        limit?: number;
        before?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiTopups: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          amount_cny: number;
          /** @enum {string} */
          provider: 'alipay' | 'wechat';
          /**
           * @description qr: a QR code to scan with another device; mobile: a pay URL for the browser of the phone the console runs on (Alipay mobile-web payment, WeChat Pay H5)
           * @default qr
           * @enum {string}
           */
          channel?: 'qr' | 'mobile';
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUp'];
        };
      };
      /** @description too many unpaid orders (TOPUP_MAX_OPEN_ORDERS) or unpaid orders created within the hour, cancelled ones included (TOPUP_MAX_ORDERS_PER_HOUR) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the payment provider is unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConsoleApiTopupsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUp'];
        };
      };
      /** @description not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postConsoleApiTopupsIdCancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUp'];
        };
      };
      /** @description not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description paid, ended, or the payer is completing the payment (the order stays open) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the payment provider could not be reached; nothing changed */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAccounts: {
    parameters: {
      query?: {
        email?: string;
        limit?: number;
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AccountList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAccountsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiAccountsIdDisable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiAccountsIdEnable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchAdminApiAccountsIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          rpm_limit?: number | null;
          max_active_video_tasks?: number | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAccountsIdTopups: {
    parameters: {
      query?: {
        limit?: number;
        before?: string;
        order?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpList'];
        };
      };
      /** @description no such account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiAccountsIdTopups: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description the CNY amount the bank received, at most 2 decimals; credited at TOPUP_CNY_PER_USD with the bonus of QR top-ups */
          amount_cny: number;
          reference: string;
          note?: string;
          transfer_reference?: string;
        };
      };
    };
    responses: {
      /** @description already credited */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BankTransferTopUp'];
        };
      };
      /** @description OK */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BankTransferTopUp'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiAccountsIdAdjustments: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          amount_usd: number;
          reason: string;
          reference?: string;
        };
      };
    };
    responses: {
      /** @description already applied */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Adjustment'];
        };
      };
      /** @description OK */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Adjustment'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTasks: {
    parameters: {
      query?: {
        status?: 'pending' | 'processing' | 'succeeded' | 'completed' | 'failed';
        model?: string;
        account_id?: string;
        older_than_seconds?: number;
        created_after?: number | string;
        created_before?: number | string;
        after?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AdminTaskList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiTasksTaskIdRetry: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VideoTask'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAccountsIdLedger: {
    parameters: {
      query?: {
        limit?: number;
        before?: string;
        kind?: 'grant' | 'topup' | 'bonus' | 'charge' | 'refund' | 'adjustment';
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LedgerPage'];
        };
      };
      /** @description no such account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAccountsIdKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TokenList'];
        };
      };
      /** @description no such account */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTasksTaskId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AdminTask'];
        };
      };
      /** @description not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTasksTaskIdCallbacks: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CallbackDeliveryList'];
        };
      };
      /** @description not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTransferReferencesReference: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        reference: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BankTransferReference'];
        };
      };
      /** @description not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiTopupsIdRefund: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description what to refund, in CNY; default: all that is left of the payment */
          amount_cny?: number;
          /** @description why; recorded in the audit log and sent to the provider */
          reason: string;
        };
      };
    };
    responses: {
      /** @description OK */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpRefund'];
        };
      };
      /** @description under way: finished by the notification or the reconciler */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpRefund'];
        };
      };
      /** @description no such top-up */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description the provider refused (its reason in the message), the top-up is not paid, or more than is left was asked */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTopupRefunds: {
    parameters: {
      query?: {
        status?: 'pending' | 'succeeded' | 'failed' | 'held';
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpRefundList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiTopupsIdRefunds: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TopUpRefundList'];
        };
      };
      /** @description no such top-up */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiQueues: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiQueuesNamePause: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueState'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiQueuesNameResume: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueState'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiAuditLog: {
    parameters: {
      query?: {
        account_id?: string;
        target_id?: string;
        action?:
          | 'account.disable'
          | 'account.enable'
          | 'account.limits'
          | 'account.topup'
          | 'account.adjustment'
          | 'topup.refund'
          | 'topup.refund_outcome'
          | 'task.retry'
          | 'queue.pause'
          | 'queue.resume'
          | 'webhook_endpoint.enable';
        before?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditLog'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminApiWebhookEndpoints: {
    parameters: {
      query?: {
        account_id?: string;
        after?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AdminWebhookEndpointList'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postAdminApiAccountsIdWebhookEndpointsEndpointIdEnable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        endpointId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EnabledWebhookEndpoint'];
        };
      };
      /** @description no such endpoint */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postPaymentsAlipayNotify: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description a malformed notification: the text fail */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description a signature that does not verify: the text fail */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description an unknown order (the text fail); the provider is not configured (the error envelope) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description a temporary failure: the text fail */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postPaymentsWechatNotify: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description accepted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description a malformed notification: {"code":"FAIL"} */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WeChatPayFail'];
        };
      };
      /** @description a signature that does not verify: {"code":"FAIL"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WeChatPayFail'];
        };
      };
      /** @description an unknown order ({"code":"FAIL"}); the provider is not configured (the error envelope) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WeChatPayFail'] | components['schemas']['Error'];
        };
      };
      /** @description a temporary failure: {"code":"FAIL"} */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WeChatPayFail'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postPaymentsProviderNotify: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        provider: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PaymentNotificationResult'];
        };
      };
      /** @description bad signature */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error (every non-2xx answer has this shape) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
