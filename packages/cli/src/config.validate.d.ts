// The precompiled validator of the config composed from the bundled sections, written into dist by the build
// (scripts/write-config-schema.mjs).
export declare const schemaKey: string;
export declare const options: import("@skillrig/core").SchemaValidatorOptions;
export declare const validate: (value: unknown) => boolean;
