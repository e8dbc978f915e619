export declare const VIEW_OUTPUT: string;
export declare const VIEW_SOURCES: { template: string; styles: string[]; scripts: string[] };
export declare function buildMcpView(): string;
